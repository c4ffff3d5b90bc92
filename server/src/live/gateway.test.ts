import { eq } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../test/build-app.js";
import { createUser, signIn } from "../../test/factories.js";
import { withTwoInstances as twoInstances } from "../../test/two-instances.js";
import { agencies, capcodes } from "../db/schema.js";

const KEY = "live-test-ingest-key-00000";
let app: TestApp;
let url: string;
const sockets: Socket[] = [];

type Received = { id: number; agency_code: string; message: string };

function open(token: string, base = url): Socket {
  const s = connect(base, { transports: ["polling"], auth: { token }, reconnection: false, forceNew: true });
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

/** Collects every new-alert a socket receives. */
function collect(s: Socket): Received[] {
  const got: Received[] = [];
  s.on("new-alert", (a: Received) => got.push(a));
  return got;
}

async function ingest(capcode: string, message: string, target: TestApp = app) {
  const res = await target.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { capcode, message },
  });
  return res.json().data[0] as { id: number };
}

async function joinedAgencies(s: Socket) {
  const joined = once<{ agencies: { code: string }[]; warning?: string }>(s, "joined-user-agencies");
  s.emit("join-user-agencies");
  return joined;
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  const rows = await app.db.select().from(agencies);
  const id = (code: string) => rows.find((a) => a.code === code)!.id;
  await app.db.insert(capcodes).values([
    { capcode: "0500001", agencyId: id("CFA") },
    { capcode: "0500002", agencyId: id("SES") },
  ]);
  url = await listenLocally(app);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});
afterAll(() => app.cleanup());

describe("the live channel", () => {
  it("refuses a connection without a valid token", async () => {
    const s = open("not.a.token");
    const err = await once<Error & { data?: { reason?: string } }>(s, "connect_error");
    expect(err.data?.reason).toBe("invalid");
  });

  it("delivers new alerts of the user's agencies only, after joining them", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const s = open(await signIn(app, user.phone));
    await once(s, "connect");
    expect((await joinedAgencies(s)).agencies.map((a) => a.code)).toEqual(["CFA"]);
    const got = collect(s);

    const ses = await ingest("0500002", "@@ALERT S251100001 SES TREE DOWN LIVE TEST");
    const cfa = await ingest("0500001", "@@ALERT F251100001 CFA HOUSE FIRE LIVE TEST");
    await expect.poll(() => got.map((a) => a.id), { timeout: 5000 }).toContain(cfa.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(got.map((a) => a.id)).not.toContain(ses.id);
    expect(got.find((a) => a.id === cfa.id)).toMatchObject({
      agency_code: "CFA",
      message: "ALERT F251100001 CFA HOUSE FIRE LIVE TEST",
    });
  });

  it("answers a join the database cannot serve with an error event, and the server goes on", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const s = open(await signIn(app, user.phone));
    await once(s, "connect");
    const lost = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    const select = vi.spyOn(app.db, "select").mockImplementation(() => {
      throw lost;
    });
    try {
      const error = once<{ message: string }>(s, "error");
      s.emit("join-user-agencies");
      expect((await error).message).toMatch(/temporarily unavailable/);
    } finally {
      select.mockRestore();
    }
    expect((await joinedAgencies(s)).agencies.map((a) => a.code)).toEqual(["CFA"]);
  });

  it("warns a user with no agency when joining", async () => {
    const user = await createUser(app, { agencyCodes: [] });
    const s = open(await signIn(app, user.phone));
    const joined = await joinedAgencies(s);
    expect(joined.agencies).toEqual([]);
    expect(joined.warning).toMatch(/not assigned/);
  });

  it("lets only admins join the admin channel, which receives every alert", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const u = open(await signIn(app, user.phone));
    const refused = once<{ message: string }>(u, "error");
    u.emit("join-admin");
    expect((await refused).message).toMatch(/Admin/);

    const admin = await createUser(app, { agencyCodes: [], isAdmin: true });
    const a = open(await signIn(app, admin.phone));
    const joined = once(a, "joined-admin");
    a.emit("join-admin");
    await joined;
    const got = collect(a);
    const ses = await ingest("0500002", "@@ALERT S251100002 ADMIN SEES THIS");
    await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toContain(ses.id);
  });

  it("tells admins, and only admins, how many keyword rules wait for review as they change", async () => {
    const admin = await createUser(app, { agencyCodes: [], isAdmin: true });
    const adminToken = await signIn(app, admin.phone);
    const a = open(adminToken);
    const joined = once(a, "joined-admin");
    a.emit("join-admin");
    await joined;
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    const memberToken = await signIn(app, member.phone);
    const m = open(memberToken);
    await once(m, "connect");
    const memberGot: unknown[] = [];
    m.on("user-alerts:pending", (p: unknown) => memberGot.push(p));
    const pendingNow = async () =>
      (
        await app.inject({
          method: "GET",
          url: "/api/admin/user-alerts/stats/overview",
          headers: { authorization: `Bearer ${adminToken}` },
        })
      ).json().data.overview.pending_alerts as number;
    const before = await pendingNow();

    const created = once<{ pending_alerts: number }>(a, "user-alerts:pending");
    const res = await app.inject({
      method: "POST",
      url: "/api/user-alerts",
      headers: { authorization: `Bearer ${memberToken}` },
      payload: { name: "Shed fires", keywords: ["shed"] },
    });
    expect(res.statusCode).toBe(201);
    expect(await created).toEqual({ pending_alerts: before + 1 });

    const approved = once<{ pending_alerts: number }>(a, "user-alerts:pending");
    const decided = await app.inject({
      method: "POST",
      url: `/api/admin/user-alerts/${res.json().data.id}/approve`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(decided.statusCode).toBe(200);
    expect(await approved).toEqual({ pending_alerts: before });
    await new Promise((r) => setTimeout(r, 300));
    expect(memberGot).toEqual([]);
  });

  it("keeps a deleted capcode's alerts with the agency that received them; its next page goes to UNMAPPED", async () => {
    const [cfa] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
    const [row] = await app.db.insert(capcodes).values({ capcode: "0500003", agencyId: cfa!.id }).returning();
    const admin = await createUser(app, { agencyCodes: [], isAdmin: true });
    const adminToken = await signIn(app, admin.phone);
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const token = await signIn(app, user.phone);
    const s = open(token);
    await once(s, "connect");
    await joinedAgencies(s);
    const got = collect(s);
    const as = (t: string) => ({ authorization: `Bearer ${t}` });
    const found = async (word: string) =>
      (
        (
          await app.inject({ method: "GET", url: `/api/alerts/search?search=${word}`, headers: as(token) })
        ).json().data as { id: number }[]
      ).map((x) => x.id);

    const before = await ingest("0500003", "@@ALERT F251100003 HISTORYKEPT HOUSE FIRE");
    await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toContain(before.id);
    const deleted = await app.inject({
      method: "DELETE",
      url: `/api/admin/capcodes/${row!.id}`,
      headers: as(adminToken),
    });
    expect(deleted.statusCode).toBe(200);

    expect(await found("HISTORYKEPT")).toEqual([before.id]);
    const one = await app.inject({ method: "GET", url: `/api/alerts/${before.id}`, headers: as(token) });
    expect(one.statusCode).toBe(200);

    const after = await ingest("0500003", "@@ALERT F251100004 NEWPAGEAFTER DELETE");
    const still = await ingest("0500001", "@@ALERT F251100005 OTHERCAPCODE STILL LIVE");
    await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toContain(still.id);
    expect(got.map((x) => x.id)).not.toContain(after.id);
    expect(await found("NEWPAGEAFTER")).toEqual([]);
    const unmapped = (
      await app.inject({ method: "GET", url: "/api/admin/capcodes/unmapped", headers: as(adminToken) })
    ).json().data as { id: number; capcode: string; message_count: number }[];
    const fresh = unmapped.find((c) => c.capcode === "0500003");
    expect(fresh).toMatchObject({ message_count: 1 });
    expect(fresh!.id).not.toBe(row!.id);
  });

  it("refuses join-agency for someone else's agency", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const s = open(await signIn(app, user.phone));
    await once(s, "connect");
    const [ses] = await app.db.select().from(agencies).where(eq(agencies.code, "SES"));
    const refused = once<{ message: string }>(s, "error");
    s.emit("join-agency", ses!.id);
    expect((await refused).message).toMatch(/not assigned/);
  });

  it("answers test-event", async () => {
    const user = await createUser(app);
    const s = open(await signIn(app, user.phone));
    await once(s, "connect");
    const reply = await s.timeout(5000).emitWithAck("test-event", { ping: 1 });
    expect(reply).toMatchObject({ received: { ping: 1 } });
  });

  it("tells a page its session ended when it signs out elsewhere", async () => {
    const user = await createUser(app);
    const token = await signIn(app, user.phone, "laptop");
    const s = open(token);
    await once(s, "connect");
    const ended = once<{ reason: string }>(s, "session-ended");
    await app.inject({
      method: "POST",
      url: "/api/auth/logout",
      headers: { authorization: `Bearer ${token}` },
    });
    expect((await ended).reason).toBe("terminated");
  });
});

describe("a graceful shutdown", () => {
  it("closes each client's transport, not its session, so the client reconnects by itself", async () => {
    const other = await buildTestApp();
    try {
      const base = await listenLocally(other);
      const user = await createUser(other);
      const serverSide: string[] = [];
      other.io.on("connection", (socket) => socket.on("disconnect", (r: string) => serverSide.push(r)));
      const s = connect(base, {
        transports: ["polling"],
        auth: { token: await signIn(other, user.phone) },
        forceNew: true,
        reconnectionDelay: 60_000,
      });
      sockets.push(s);
      await once(s, "connect");
      const reason = once<string>(s, "disconnect");
      await other.close();
      // "io server disconnect" (a DISCONNECT packet) is the one reason socket.io never reconnects after.
      expect(await reason).toMatch(/^transport (close|error)$/);
      expect(s.active).toBe(true);
      // Nothing sent a socket.io DISCONNECT ("server namespace disconnect"): through nginx it reached
      // clients before the transport closed, and they stayed away for good.
      expect(serverSide).toEqual(["forced close"]);
    } finally {
      await other.cleanup();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)("two server instances sharing Redis", () => {
  /** The shared two-instance setup, closing this file's client sockets before the instances. */
  function withTwoInstances(run: (a: TestApp, b: TestApp, urlOf: (x: TestApp) => string) => Promise<void>) {
    return twoInstances({ INGEST_API_KEY: KEY }, async (a, b, urlOf) => {
      try {
        await run(a, b, urlOf);
      } finally {
        for (const x of sockets.splice(0)) x.disconnect();
      }
    });
  }

  it("delivers an alert ingested on one instance to a client connected to the other", async () => {
    await withTwoInstances(async (a, b, urlOf) => {
      const [cfa] = await a.db.select().from(agencies).where(eq(agencies.code, "CFA"));
      await a.db.insert(capcodes).values({ capcode: "0600001", agencyId: cfa!.id });
      const user = await createUser(b, { agencyCodes: ["CFA"] });
      const s = open(await signIn(b, user.phone), urlOf(b));
      await once(s, "connect");
      await joinedAgencies(s);
      const got = collect(s);
      const created = await ingest("0600001", "@@ALERT F251100009 ACROSS INSTANCES", a);
      await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toContain(created.id);
    });
  });

  it("moves a client on one instance to its new agencies when an admin changes them on the other", async () => {
    await withTwoInstances(async (a, b, urlOf) => {
      const rows = await a.db.select().from(agencies);
      const id = (code: string) => rows.find((x) => x.code === code)!.id;
      await a.db.insert(capcodes).values([
        { capcode: "0600011", agencyId: id("CFA") },
        { capcode: "0600012", agencyId: id("SES") },
      ]);
      const user = await createUser(b, { agencyCodes: ["CFA"] });
      const s = open(await signIn(b, user.phone), urlOf(b));
      await once(s, "connect");
      await joinedAgencies(s);
      const got = collect(s);
      const adminToken = await signIn(a, (await createUser(a, { isAdmin: true })).phone);
      const rejoined = once<{ agencies: { code: string }[] }>(s, "joined-user-agencies");
      const res = await a.inject({
        method: "PUT",
        url: `/api/admin/users/${user.id}/agencies`,
        headers: { authorization: `Bearer ${adminToken}` },
        payload: { agency_ids: [id("SES")] },
      });
      expect(res.statusCode).toBe(200);
      expect((await rejoined).agencies.map((x) => x.code)).toEqual(["SES"]);
      const cfa = await ingest("0600011", "@@ALERT F251100010 NO LONGER MINE", a);
      const ses = await ingest("0600012", "@@ALERT S251100011 NOW MINE", a);
      await expect.poll(() => got.map((x) => x.id), { timeout: 5000 }).toContain(ses.id);
      expect(got.map((x) => x.id)).not.toContain(cfa.id);
    });
  });
});
