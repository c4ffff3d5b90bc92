import { MESSAGES, maskPhone } from "@turnout/domain";
import { and, desc, eq } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn, smsCount, waitForCode } from "../../../test/factories.js";
import { agencies, capcodes, securityConfig, systemLogs, userAlertRules, users } from "../../db/schema.js";

const KEY = "users-test-ingest-key-000000";
let app: TestApp;
let url: string;
let admin: { id: number; phone: string };
let adminToken: string;
const agencyId: Record<string, number> = {};
const sockets: Socket[] = [];

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

const call = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, payload?: unknown) =>
  app.inject({
    method,
    url: `/api${path}`,
    headers: auth(adminToken),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const profile = (token: string) =>
  app.inject({ method: "GET", url: "/api/auth/profile", headers: auth(token) });

function open(token: string): Socket {
  const s = connect(url, { transports: ["polling"], auth: { token }, reconnection: false, forceNew: true });
  sockets.push(s);
  return s;
}

const once = <T>(s: Socket, event: string, ms = 5000) =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    s.once(event, (v: T) => {
      clearTimeout(t);
      resolve(v);
    });
  });

type Joined = { agencies: { code: string }[] };

async function followAgencies(s: Socket): Promise<Joined> {
  const joined = once<Joined>(s, "joined-user-agencies");
  s.emit("join-user-agencies");
  return joined;
}

async function ingest(capcode: string, message: string): Promise<number> {
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { capcode, message },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data[0].id as number;
}

const searchIds = async (token: string, words: string) => {
  const res = await app.inject({
    method: "GET",
    url: `/api/alerts/search?search=${encodeURIComponent(words)}`,
    headers: auth(token),
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number }[]).map((a) => a.id);
};

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const key of ["otp_requests_per_ip", "otp_requests_per_phone", "otp_requests_per_phone_all"]) {
    await app.db.update(securityConfig).set({ value: "1000" }).where(eq(securityConfig.key, key));
  }
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  await app.db.insert(capcodes).values([
    { capcode: "0700001", agencyId: agencyId.CFA! },
    { capcode: "0700002", agencyId: agencyId.SES! },
  ]);
  admin = await createUser(app, { isAdmin: true, agencyCodes: [], firstName: "Alex" });
  adminToken = await signIn(app, admin.phone, "admin-desk");
  url = await listenLocally(app);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});
afterAll(() => app.cleanup());

describe("listing and reading users", () => {
  it("lists users with agencies, flags, session figures and the total; searches by name and phone", async () => {
    const user = await createUser(app, { firstName: "Quokka", agencyCodes: ["CFA", "SES"] });
    await signIn(app, user.phone, "phone-1");

    const res = await call("GET", "/admin/users?limit=1000&offset=0&search=&status=");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.total).toBeGreaterThanOrEqual(2);
    const listed = body.data.find((u: { id: number }) => u.id === user.id);
    expect(Object.keys(listed).sort()).toEqual(
      [
        "active_sessions",
        "agencies",
        "created_at",
        "first_name",
        "id",
        "is_active",
        "is_admin",
        "is_verified",
        "last_activity",
        "last_name",
        "max_sessions",
        "phone",
        "status",
      ].sort(),
    );
    expect(listed).toMatchObject({
      first_name: "Quokka",
      phone: user.phone,
      is_admin: false,
      is_active: true,
      is_verified: true,
      status: "active",
      max_sessions: null,
      active_sessions: 1,
      agencies: [
        { id: agencyId.CFA, name: expect.any(String), code: "CFA" },
        { id: agencyId.SES, name: expect.any(String), code: "SES" },
      ],
    });
    expect(Date.parse(listed.last_activity)).toBeGreaterThan(Date.now() - 60_000);

    const byName = (await call("GET", "/admin/users?search=quok")).json();
    expect(byName.data.map((u: { id: number }) => u.id)).toEqual([user.id]);
    expect(byName.total).toBe(1);
    // Typed the national way, with spaces: +614xxxxxxxx is found by 04xx xxx xxx.
    const national = `0${user.phone.slice(3, 6)} ${user.phone.slice(6)}`;
    const byPhone = (await call("GET", `/admin/users?search=${encodeURIComponent(national)}`)).json();
    expect(byPhone.data.map((u: { id: number }) => u.id)).toEqual([user.id]);

    const paged = (await call("GET", "/admin/users?limit=1&offset=1")).json();
    expect(paged.data).toHaveLength(1);
    expect(paged.total).toBe(body.total);
  });

  it("filters by status: pending review, unverified and deactivated accounts are told apart", async () => {
    const [pending] = await app.db
      .insert(users)
      .values({ firstName: "Pending", lastName: "Review", phone: "+61411000001", isVerified: true })
      .returning();
    const [unverified] = await app.db
      .insert(users)
      .values({ firstName: "Never", lastName: "Verified", phone: "+61411000002" })
      .returning();
    const ids = async (status: string) =>
      (await call("GET", `/admin/users?status=${status}`)).json().data.map((u: { id: number }) => u.id);
    expect(await ids("pending_review")).toContain(pending!.id);
    expect(await ids("unverified")).toContain(unverified!.id);
    expect(await ids("active")).not.toContain(pending!.id);
    expect((await call("GET", `/admin/users/${pending!.id}`)).json().data.status).toBe("pending_review");
  });

  it("gets one user, and answers 404 for an unknown one", async () => {
    const user = await createUser(app, { firstName: "Wombat" });
    const res = await call("GET", `/admin/users/${user.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: user.id, first_name: "Wombat", agencies: [{ code: "CFA" }] });
    const missing = await call("GET", "/admin/users/999999");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      success: false,
      errorType: "not_found",
      message: "User not found.",
    });
  });

  it("answers bad input with 400 and a message naming the problem", async () => {
    const cases: [string, string, unknown?][] = [
      ["GET", "/admin/users?limit=1001"],
      ["GET", "/admin/users?limit=0x10"],
      ["GET", "/admin/users?status=sleeping"],
      ["GET", "/admin/users/1e3"],
      ["POST", "/admin/users", { first_name: "", last_name: "X", phone: "0412000000" }],
      ["POST", "/admin/users", { first_name: "A", last_name: "B", phone: "12" }],
      // Numbers Turnout does not text (a landline, another country's mobile): the welcome never arrives.
      ["POST", "/admin/users", { first_name: "A", last_name: "B", phone: "02 9999 8888" }],
      ["POST", "/admin/users", { first_name: "A", last_name: "B", phone: "+447700900123" }],
      ["PUT", `/admin/users/${admin.id}`, { phone: "03 9999 8888" }],
      ["POST", "/admin/users", { first_name: "A", last_name: "B", phone: "0412000009", max_sessions: 21 }],
      [
        "POST",
        "/admin/users",
        { first_name: "A", last_name: "B", phone: "0412000009", agency_ids: [999999] },
      ],
      ["PUT", `/admin/users/${admin.id}`, {}],
      ["PUT", `/admin/users/${admin.id}/session-limits`, { max_sessions: 0 }],
      ["PUT", `/admin/users/${admin.id}/session-limits`, {}],
      ["PATCH", `/admin/users/${admin.id}/toggle-active`, { is_active: "yes" }],
      ["POST", `/admin/users/${admin.id}/sessions/terminate`, { session_id: "not-a-uuid" }],
      ["POST", `/admin/users/${admin.id}/agencies`, { agency_id: "0x2" }],
      ["PUT", `/admin/users/${admin.id}/agencies`, { agency_ids: [1, -1] }],
      ["POST", "/admin/users/pwa-banner/reset", { user_ids: [] }],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(method as "GET", path, body);
      expect({ path, body, status: res.statusCode }).toEqual({ path, body, status: 400 });
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
      expect(res.json().message).toMatch(/\w/);
    }
    const unmapped = await call("POST", "/admin/users", {
      first_name: "A",
      last_name: "B",
      phone: "0412000009",
      agency_ids: [agencyId.UNMAPPED],
    });
    expect(unmapped.statusCode).toBe(400);
    expect(unmapped.json().message).toMatch(/Unmapped Capcodes/);
  });

  it("refuses anonymous callers with 401 and users with 403 before looking at the input", async () => {
    const userToken = await signIn(app, (await createUser(app)).phone);
    const anon = await app.inject({ method: "PUT", url: "/api/admin/users/0x1", payload: { phone: 1 } });
    expect(anon.statusCode).toBe(401);
    const user = await app.inject({
      method: "PUT",
      url: "/api/admin/users/0x1",
      headers: auth(userToken),
      payload: { phone: 1 },
    });
    expect(user.statusCode).toBe(403);
  });
});

describe("creating, changing and deleting users", () => {
  it("creates an active user who signs in at once; a taken phone is a 409", async () => {
    const res = await call("POST", "/admin/users", {
      first_name: " Kim ",
      last_name: "Lee",
      phone: "0412 555 101",
      agency_ids: [agencyId.SES],
      max_sessions: 3,
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      first_name: "Kim",
      last_name: "Lee",
      phone: "+61412555101",
      is_admin: false,
      is_active: true,
      is_verified: true,
      status: "active",
      max_sessions: 3,
      active_sessions: 0,
      last_activity: null,
      agencies: [{ code: "SES" }],
    });
    // The new member is told how to sign in, before asking for a code.
    await expect
      .poll(() => readOutbox(app).find((m) => m.to === "+61412555101")?.body)
      .toBe(
        "Turnout: Hi Kim, an administrator has added you. Sign in to Turnout (ask your administrator for its address) with this phone number; we will text you a 6-digit code.",
      );
    const token = await signIn(app, "+61412555101");
    expect((await profile(token)).json().agency.code).toBe("SES");

    const again = await call("POST", "/admin/users", {
      first_name: "K",
      last_name: "L",
      phone: "+61412555101",
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe("A user with this phone number already exists.");
    // The refused second account texted nobody.
    expect(readOutbox(app).filter((m) => m.to === "+61412555101" && /added you/.test(m.body))).toHaveLength(
      1,
    );
  });

  it("updates names, the phone (normalised) and the admin flag; a taken phone is a 409", async () => {
    const user = await createUser(app);
    const other = await createUser(app);
    const res = await call("PUT", `/admin/users/${user.id}`, {
      first_name: "Jo",
      phone: "61 412 555 202",
      is_admin: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      first_name: "Jo",
      last_name: "Tester",
      phone: "+61412555202",
      is_admin: true,
    });
    const taken = await call("PUT", `/admin/users/${user.id}`, { phone: other.phone });
    expect(taken.statusCode).toBe(409);
    expect((await call("PUT", "/admin/users/999999", { first_name: "X" })).statusCode).toBe(404);
  });

  it("deletes a user with their rules and sessions; their token stops working", async () => {
    const user = await createUser(app);
    const token = await signIn(app, user.phone);
    await app.db
      .insert(userAlertRules)
      .values({ userId: user.id, name: "Fires", keywords: ["fire"], status: "approved" });

    const res = await call("DELETE", `/admin/users/${user.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: "User deleted." });
    expect((await call("GET", `/admin/users/${user.id}`)).statusCode).toBe(404);
    expect(await app.db.select().from(userAlertRules).where(eq(userAlertRules.userId, user.id))).toEqual([]);
    expect((await profile(token)).statusCode).toBe(401);
    expect((await call("DELETE", `/admin/users/${user.id}`)).statusCode).toBe(404);
  });

  it("records each admin action in the security actions list and the system log, phone masked", async () => {
    const user = await createUser(app);
    await call("PUT", `/admin/users/${user.id}/session-limits`, { max_sessions: 4 });

    const actions = (await call("GET", "/admin/security/actions?limit=5")).json().data;
    expect(actions[0]).toMatchObject({
      event_type: "admin_session_limit_changed",
      user_id: admin.id,
      identifier: maskPhone(user.phone),
      details: { target_user_id: user.id, max_sessions: 4 },
    });
    const [log] = await app.db
      .select()
      .from(systemLogs)
      .where(and(eq(systemLogs.category, "admin"), eq(systemLogs.level, "info")))
      .orderBy(desc(systemLogs.id))
      .limit(1);
    expect(log!.message).toBe(
      `Admin #${admin.id} set the session limit to 4 for user #${user.id} (${maskPhone(user.phone)})`,
    );
    expect(JSON.stringify(log)).not.toContain(user.phone);
    expect(JSON.stringify(log)).toContain(maskPhone(user.phone));
  });
});

describe("guard rails", () => {
  it("an admin cannot deactivate, delete or un-admin themselves", async () => {
    const deactivate = await call("PATCH", `/admin/users/${admin.id}/toggle-active`, { is_active: false });
    expect(deactivate.statusCode).toBe(409);
    expect(deactivate.json().message).toBe("You cannot deactivate your own account.");
    const remove = await call("DELETE", `/admin/users/${admin.id}`);
    expect(remove.statusCode).toBe(409);
    expect(remove.json().message).toBe("You cannot delete your own account.");
    const unadmin = await call("PUT", `/admin/users/${admin.id}`, { is_admin: false });
    expect(unadmin.statusCode).toBe(409);
    expect(unadmin.json().message).toBe("You cannot remove your own admin rights.");
    expect((await call("GET", `/admin/users/${admin.id}`)).json().data).toMatchObject({
      is_admin: true,
      is_active: true,
    });
  });

  it("two admins removing each other's rights at once leave one admin", async () => {
    const solo = await buildTestApp();
    try {
      const a = await createUser(solo, { isAdmin: true });
      const b = await createUser(solo, { isAdmin: true });
      const [tokenA, tokenB] = [await signIn(solo, a.phone), await signIn(solo, b.phone)];
      const unadmin = (token: string, id: number) =>
        solo.inject({
          method: "PUT",
          url: `/api/admin/users/${id}`,
          headers: auth(token),
          payload: { is_admin: false },
        });
      const results = await Promise.all([unadmin(tokenA, b.id), unadmin(tokenB, a.id)]);
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const refused = results.find((r) => r.statusCode === 409);
      if (refused) expect(refused.json().message).toMatch(/last active admin/);
      const admins = await solo.db.select().from(users).where(eq(users.isAdmin, true));
      expect(admins).toHaveLength(1);
    } finally {
      await solo.cleanup();
    }
  });
});

describe("deactivation and sessions take effect at once", () => {
  it("deactivating ends the user's sessions: 401 logged_out_by_admin, the open page is told within 2 s", async () => {
    const user = await createUser(app);
    const token = await signIn(app, user.phone);
    const s = open(token);
    await once(s, "connect");
    const ended = once<{ reason: string }>(s, "session-ended", 2000);

    const res = await call("PATCH", `/admin/users/${user.id}/toggle-active`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ is_active: false, status: "inactive", active_sessions: 0 });
    expect((await ended).reason).toBe("logged_out_by_admin");
    const after = await profile(token);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({
      reason: "logged_out_by_admin",
      message: MESSAGES.LOGGED_OUT_BY_ADMIN,
    });
    const actions = (await call("GET", "/admin/security/actions?limit=1")).json().data;
    expect(actions[0]).toMatchObject({
      event_type: "admin_user_deactivated",
      details: { target_user_id: user.id },
    });
  });

  it("a deactivated user asking for a code is told so clearly, and no SMS is sent; reactivated, they sign in", async () => {
    const user = await createUser(app);
    const sent = smsCount(app, user.phone);
    await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone: user.phone } });
    const code = await waitForCode(app, user.phone, sent);
    await call("PATCH", `/admin/users/${user.id}/toggle-active`, { is_active: false });
    // A code that arrived before the deactivation does not sign in either, and says why.
    const late = await app.inject({
      method: "POST",
      url: "/api/auth/verify-otp",
      headers: { "x-device-id": "late" },
      payload: { phone: user.phone, otp_code: code },
    });
    expect(late.statusCode).toBe(403);
    expect(late.json().errorType).toBe("account_inactive");

    const before = smsCount(app, user.phone);
    const res = await app.inject({
      method: "POST",
      url: "/api/auth/request-otp",
      payload: { phone: user.phone },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      errorType: "account_inactive",
      message: "Your account has been deactivated. Please contact your administrator.",
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(smsCount(app, user.phone)).toBe(before);

    const back = await call("PATCH", `/admin/users/${user.id}/toggle-active`, { is_active: true });
    expect(back.json().data).toMatchObject({ is_active: true, status: "active" });
    expect((await profile(await signIn(app, user.phone))).statusCode).toBe(200);
  });

  it("activating an account that waited for review texts it that it is ready", async () => {
    const [pending] = await app.db
      .insert(users)
      .values({ firstName: "Wait", lastName: "Ing", phone: "+61411000003", isVerified: true })
      .returning();
    const waiting = await app.inject({
      method: "POST",
      url: "/api/auth/request-otp",
      payload: { phone: pending!.phone },
    });
    expect(waiting.json().errorType).toBe("account_not_activated");
    const res = await call("PATCH", `/admin/users/${pending!.id}/toggle-active`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.status).toBe("active");
    await expect.poll(() => smsCount(app, pending!.phone), { timeout: 5000 }).toBe(1);
  });

  it("lists a user's sessions and ends one of them, or all", async () => {
    const user = await createUser(app);
    const laptop = await signIn(app, user.phone, "laptop");
    const phone = await signIn(app, user.phone, "phone");
    const listed = await call("GET", `/admin/users/${user.id}/sessions`);
    expect(listed.statusCode).toBe(200);
    const sessions = listed.json().data as { id: string }[];
    expect(sessions).toHaveLength(2);
    expect(Object.keys(sessions[0]!).sort()).toEqual([
      "created_at",
      "device_info",
      "id",
      "ip_address",
      "last_activity",
    ]);

    const laptopSocket = open(laptop);
    await once(laptopSocket, "connect");
    const ended = once<{ reason: string }>(laptopSocket, "session-ended", 2000);
    const one = await call("POST", `/admin/users/${user.id}/sessions/terminate`, {
      session_id: sessions[0]!.id,
    });
    expect(one.json()).toEqual({ success: true, data: { terminated: 1 } });
    expect((await ended).reason).toBe("logged_out_by_admin");
    expect((await profile(laptop)).json().reason).toBe("logged_out_by_admin");
    expect((await profile(phone)).statusCode).toBe(200);

    const gone = await call("POST", `/admin/users/${user.id}/sessions/terminate`, {
      session_id: sessions[0]!.id,
    });
    expect(gone.statusCode).toBe(404);
    const all = await call("POST", `/admin/users/${user.id}/sessions/terminate`, {});
    expect(all.json().data.terminated).toBe(1);
    expect((await profile(phone)).statusCode).toBe(401);
  });

  it("a session limit applies at the next sign-in; null restores the default", async () => {
    const user = await createUser(app);
    await signIn(app, user.phone, "first");
    const res = await call("PUT", `/admin/users/${user.id}/session-limits`, { max_sessions: 1 });
    expect(res.json().data.max_sessions).toBe(1);
    await expect(signIn(app, user.phone, "second")).rejects.toThrow(/409.*session_limit/);
    const reset = await call("PUT", `/admin/users/${user.id}/session-limits`, { max_sessions: null });
    expect(reset.json().data.max_sessions).toBeNull();
    await expect(signIn(app, user.phone, "second")).resolves.toEqual(expect.any(String));
  });
});

describe("agencies take effect at once", () => {
  it("removing an agency stops its live alerts and hides them from search; adding one starts them", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const token = await signIn(app, user.phone);
    const s = open(token);
    await once(s, "connect");
    expect((await followAgencies(s)).agencies.map((a) => a.code)).toEqual(["CFA"]);
    const got: number[] = [];
    s.on("new-alert", (a: { id: number }) => got.push(a.id));

    const before = await ingest("0700001", "@@ALERT F251100101 GRASS FIRE BEFORE REMOVAL");
    await expect.poll(() => got, { timeout: 5000 }).toContain(before);
    expect(await searchIds(token, "BEFORE REMOVAL")).toEqual([before]);

    const rejoined = once<Joined>(s, "joined-user-agencies");
    const removed = await call("DELETE", `/admin/users/${user.id}/agencies/${agencyId.CFA}`);
    expect(removed.json()).toEqual({ success: true, data: [] });
    expect((await rejoined).agencies).toEqual([]);
    const after = await ingest("0700001", "@@ALERT F251100102 GRASS FIRE AFTER REMOVAL");
    expect(await searchIds(token, "REMOVAL")).toEqual([]);

    const joinedSes = once<Joined>(s, "joined-user-agencies");
    const added = await call("POST", `/admin/users/${user.id}/agencies`, { agency_id: agencyId.SES });
    expect(added.json().data).toEqual([{ id: agencyId.SES, name: expect.any(String), code: "SES" }]);
    expect((await joinedSes).agencies.map((a) => a.code)).toEqual(["SES"]);
    const ses = await ingest("0700002", "@@ALERT S251100103 TREE DOWN AFTER ADDING");
    await expect.poll(() => got, { timeout: 5000 }).toContain(ses);
    expect(got).not.toContain(after);
    expect(await searchIds(token, "AFTER ADDING")).toEqual([ses]);

    const missing = await call("DELETE", `/admin/users/${user.id}/agencies/${agencyId.CFA}`);
    expect(missing.statusCode).toBe(404);
  });

  it("replaces the whole set, keeping the first agency first, and lists it", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA", "FRV"] });
    const res = await call("PUT", `/admin/users/${user.id}/agencies`, {
      agency_ids: [agencyId.SES, agencyId.CFA],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((a: { code: string }) => a.code)).toEqual(["CFA", "SES"]);
    const listed = await call("GET", `/admin/users/${user.id}/agencies`);
    expect(listed.json().data.map((a: { code: string }) => a.code)).toEqual(["CFA", "SES"]);
    expect((await call("GET", "/admin/users/999999/agencies")).statusCode).toBe(404);
  });
});

describe("admin rights take effect at once", () => {
  it("a user who loses admin rights leaves the admin channel", async () => {
    const other = await createUser(app, { isAdmin: true, agencyCodes: [] });
    const joinAdmin = async (token: string) => {
      const s = open(token);
      const joined = once(s, "joined-admin");
      s.emit("join-admin");
      await joined;
      const got: number[] = [];
      s.on("new-alert", (a: { id: number }) => got.push(a.id));
      return got;
    };
    const mine = await joinAdmin(adminToken);
    const theirs = await joinAdmin(await signIn(app, other.phone));

    const res = await call("PUT", `/admin/users/${other.id}`, { is_admin: false });
    expect(res.json().data.is_admin).toBe(false);
    // The admin channel gets every alert, an unknown capcode's too: the remaining admin's proves it was sent.
    await new Promise((r) => setTimeout(r, 300));
    const alert = await ingest("0799999", "QDADMIN CHANNEL CHECK AFTER DEMOTION");
    await expect.poll(() => mine, { timeout: 5000 }).toContain(alert);
    expect(theirs).not.toContain(alert);
  });
});

describe("install-banner reset", () => {
  it("shows in the chosen users' profiles, and reset-all covers everyone", async () => {
    const user = await createUser(app);
    const other = await createUser(app);
    const token = await signIn(app, user.phone);
    const otherToken = await signIn(app, other.phone);
    expect((await profile(token)).json().user.pwa_banner_reset_at).toBeNull();

    const res = await call("POST", "/admin/users/pwa-banner/reset", { user_ids: [user.id, 999999] });
    expect(res.json()).toEqual({ success: true, data: { reset: 1 } });
    const resetAt = (await profile(token)).json().user.pwa_banner_reset_at;
    expect(Date.parse(resetAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await profile(otherToken)).json().user.pwa_banner_reset_at).toBeNull();

    const all = await call("POST", "/admin/users/pwa-banner/reset-all");
    const total = (await call("GET", "/admin/users?limit=1")).json().total;
    expect(all.json()).toEqual({ success: true, data: { reset: total } });
    expect((await profile(otherToken)).json().user.pwa_banner_reset_at).not.toBeNull();
  });

  it("resets everyone from many admins at once without a deadlock, also beside resets of a few", async () => {
    const many = await Promise.all(Array.from({ length: 30 }, () => createUser(app)));
    // Rows updated since they were inserted lie out of id order in the table: what an index walk and
    // a table scan would lock in different orders.
    await call("POST", "/admin/users/pwa-banner/reset", { user_ids: many.map((u) => u.id).reverse() });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 3 === 0
          ? call("POST", "/admin/users/pwa-banner/reset", {
              user_ids: many.map((u) => u.id).filter((_, j) => j % (i + 2) === 0),
            })
          : call("POST", "/admin/users/pwa-banner/reset-all"),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 200));
  });
});
