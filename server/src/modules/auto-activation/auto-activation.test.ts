import { readFileSync } from "node:fs";
import { desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn, uniquePhone, waitForCode } from "../../../test/factories.js";
import { appSettings, securityEvents, systemLogs, users } from "../../db/schema.js";

let app: TestApp;
let adminToken: string;
let memberToken: string;
let alex: Awaited<ReturnType<typeof createUser>>;
let blair: Awaited<ReturnType<typeof createUser>>;

const call = (method: "GET" | "PUT", url: string, payload?: object, token: string | null = adminToken) =>
  app.inject({
    method,
    url: `/api/admin/auto-activation${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload ? { payload } : {}),
  });

/** Registers and activates a new account through the real endpoints; resolves to the activation reply. */
async function signUp(phone: string, firstName: string) {
  const registered = await app.inject({
    method: "POST",
    url: "/api/auth/register",
    payload: {
      first_name: firstName,
      last_name: "Newcomer",
      phone,
      user_agency: "CFA",
      postcode: "3550",
      town_name: "Bendigo",
      state_name: "VIC",
    },
  });
  expect(registered.statusCode).toBe(201);
  const code = await waitForCode(app, phone);
  return app.inject({ method: "POST", url: "/api/auth/activate", payload: { phone, activation_code: code } });
}

beforeAll(async () => {
  app = await buildTestApp();
  alex = await createUser(app, { isAdmin: true, firstName: "Alex" });
  blair = await createUser(app, { isAdmin: true, firstName: "Blair" });
  const member = await createUser(app, { firstName: "Morgan" });
  adminToken = await signIn(app, alex.phone);
  memberToken = await signIn(app, member.phone);
});
afterAll(() => app.cleanup());

describe("auto-activation config", () => {
  it("is on by default, turns off and on, and each change is an admin action", async () => {
    expect((await call("GET", "/config")).json()).toEqual({ success: true, data: { enabled: true } });
    const off = await call("PUT", "/config", { enabled: false });
    expect(off.json()).toEqual({ success: true, data: { enabled: false } });
    expect((await call("GET", "/config")).json().data.enabled).toBe(false);

    const [log] = await app.db.select().from(systemLogs).orderBy(desc(systemLogs.id)).limit(1);
    expect(log).toMatchObject({
      level: "info",
      category: "admin",
      message: "Auto-activation turned off",
      details: { admin_id: alex.id, setting: "auto_activation", enabled: false },
    });
    const actions = await app.inject({
      method: "GET",
      url: "/api/admin/security/actions",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(actions.json().data[0]).toMatchObject({ event_type: "admin_config_changed" });

    await call("PUT", "/config", { enabled: true });
    expect((await call("GET", "/config")).json().data.enabled).toBe(true);
  });

  it("refuses a body without a boolean, and non-admins", async () => {
    const bad = await call("PUT", "/config", { enabled: "yes" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain("enabled must be true or false");
    expect((await call("GET", "/config", undefined, memberToken)).statusCode).toBe(403);
    expect((await call("PUT", "/config", { enabled: false }, null)).statusCode).toBe(401);
  });
});

describe("admin notifications", () => {
  it("starts on with nobody chosen (every admin), lists the active admins, and keeps the chosen ones", async () => {
    const start = (await call("GET", "/admin-notifications")).json().data;
    expect(start).toEqual({
      enabled: true,
      admin_ids: [],
      admins: [
        { id: alex.id, first_name: "Alex", last_name: "Tester" },
        { id: blair.id, first_name: "Blair", last_name: "Tester" },
      ],
    });

    const chosen = await call("PUT", "/admin-notifications", { enabled: true, admin_ids: [blair.id] });
    expect(chosen.json().data).toMatchObject({ enabled: true, admin_ids: [blair.id] });
    // Turning it off and on again without naming admins keeps the choice.
    await call("PUT", "/admin-notifications", { enabled: false });
    const again = await call("PUT", "/admin-notifications", { enabled: true });
    expect(again.json().data).toMatchObject({ enabled: true, admin_ids: [blair.id] });
    const [log] = await app.db.select().from(systemLogs).orderBy(desc(systemLogs.id)).limit(1);
    expect(log?.message).toBe("Admin notifications for accounts awaiting review turned on");
  });

  it("migration 0024 turns on the old default (off, never changed) and keeps an admin's choice", async () => {
    const migration = readFileSync(
      new URL("../../../drizzle/0024_admin_notifications_on.sql", import.meta.url),
      "utf8",
    );
    const setting = async () =>
      (await app.db.select().from(appSettings).where(eq(appSettings.key, "admin_notifications")))[0];
    const saved = await setting();
    try {
      await app.db
        .update(appSettings)
        .set({ value: { new_registration_sms: false }, updatedBy: null })
        .where(eq(appSettings.key, "admin_notifications"));
      await app.db.execute(sql.raw(migration));
      expect((await setting())?.value).toEqual({ enabled: true, admin_ids: [] });

      // Turned off by an admin: stays off.
      await app.db
        .update(appSettings)
        .set({ value: { new_registration_sms: false }, updatedBy: alex.id })
        .where(eq(appSettings.key, "admin_notifications"));
      await app.db.execute(sql.raw(migration));
      expect((await setting())?.value).toEqual({ new_registration_sms: false });
    } finally {
      await app.db
        .update(appSettings)
        .set({ value: saved!.value, updatedBy: saved!.updatedBy })
        .where(eq(appSettings.key, "admin_notifications"));
    }
  });

  it("refuses ids that are not active admins", async () => {
    const member = await createUser(app);
    const res = await call("PUT", "/admin-notifications", { enabled: true, admin_ids: [member.id, 987654] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(`These ids are not active admins: ${member.id}, 987654`);
    expect((await call("PUT", "/admin-notifications", { enabled: true, admin_ids: ["x"] })).statusCode).toBe(
      400,
    );
  });
});

describe("activation with auto-activation off and on", () => {
  it("leaves a new account pending review and texts only the chosen admins", async () => {
    await call("PUT", "/config", { enabled: false });
    await call("PUT", "/admin-notifications", { enabled: true, admin_ids: [blair.id] });
    const phone = uniquePhone();
    const res = await signUp(phone, "Casey");
    expect(res.json()).toMatchObject({ success: true, data: { status: "pending_review" } });
    const [stored] = await app.db.select().from(users).where(eq(users.phone, phone));
    expect(stored).toMatchObject({ isVerified: true, isActive: false });

    await expect
      .poll(() =>
        readOutbox(app)
          .filter((m) => m.to === blair.phone)
          .map((m) => m.body),
      )
      .toEqual([
        "Turnout: Casey Newcomer has verified a new account and is waiting for review. Activate it in the admin console, Users tab.",
      ]);
    expect(readOutbox(app).filter((m) => m.to === alex.phone && m.body.includes("review"))).toEqual([]);
    expect(readOutbox(app).filter((m) => m.to === phone && /ready/.test(m.body))).toEqual([]);
  });

  it("texts every active admin when notifications are on and nobody is chosen, and none when off", async () => {
    await call("PUT", "/config", { enabled: false });
    await call("PUT", "/admin-notifications", { enabled: true, admin_ids: [] });
    const before = { alex: readOutbox(app).filter((m) => m.to === alex.phone).length };
    await signUp(uniquePhone(), "Drew");
    await expect.poll(() => readOutbox(app).filter((m) => m.to === alex.phone).length).toBe(before.alex + 1);
    expect(
      readOutbox(app)
        .filter((m) => m.to === blair.phone)
        .at(-1)?.body,
    ).toContain("Drew Newcomer");

    await call("PUT", "/admin-notifications", { enabled: false });
    const total = readOutbox(app).length;
    const phone = uniquePhone();
    await signUp(phone, "Ellis");
    // Only the new account's activation code was sent.
    await new Promise((r) => setTimeout(r, 300));
    expect(
      readOutbox(app)
        .slice(total)
        .map((m) => m.to),
    ).toEqual([phone]);
  });

  it("activates a new account at once when on, and texts it that it is ready", async () => {
    await call("PUT", "/config", { enabled: true });
    const phone = uniquePhone();
    const res = await signUp(phone, "Frankie");
    expect(res.json()).toMatchObject({ success: true, data: { status: "active" } });
    const [stored] = await app.db.select().from(users).where(eq(users.phone, phone));
    expect(stored).toMatchObject({ isVerified: true, isActive: true });
    await expect
      .poll(() => readOutbox(app).some((m) => m.to === phone && m.body.includes("your account is ready")))
      .toBe(true);
    const events = await app.db.select().from(securityEvents).where(eq(securityEvents.userId, stored!.id));
    expect(events.map((e) => e.eventType)).toContain("activation_success");
  });
});
