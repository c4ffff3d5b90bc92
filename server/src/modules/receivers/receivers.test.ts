import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  openTestCache,
  openTestDatabase,
  type TestApp,
  testConfig,
} from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { buildApp } from "../../app.js";
import {
  agencies,
  alertReceivers,
  capcodes,
  deviceSessions,
  pushDeliveries,
  pushSubscriptions,
  receiverKeys,
  receivers,
  smsQueue,
  systemLogs,
  users,
} from "../../db/schema.js";
import { createLogger } from "../../logger.js";
import { checkMonitor } from "./checker.js";

const LEGACY_KEY = "legacy-ingest-key-0123456789";
let app: TestApp;
let admin: string;
let adminPhone: string;
let cfa: number;

const asAdmin = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${admin}` }, ...(payload ? { payload } : {}) });

const ingestWith = (key: string, payload: object) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${key}` },
    payload,
  });

const heartbeat = (key: string, payload: object = {}) =>
  app.inject({ method: "POST", url: "/api/ingest/heartbeat", headers: { "x-api-key": key }, payload });

let seq = 0;
const page = () => `@@ALERT F25${String(1000000 + ++seq)} STRUC1 HOUSE FIRE ${seq} MAIN ST BENDIGO`;

async function register(body: object = {}) {
  const res = await asAdmin("POST", "/api/admin/receivers", { name: `Rx ${++seq}`, ...body });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: number; key: { id: number; key: string; key_prefix: string } };
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: LEGACY_KEY });
  adminPhone = (await createUser(app, { isAdmin: true })).phone;
  admin = await signIn(app, adminPhone);
  const [row] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
  cfa = row!.id;
  await app.db.insert(capcodes).values({ capcode: "0200001", agencyId: cfa, area: "Bendigo" });
});
afterAll(() => app.cleanup());

describe("receivers and their keys", () => {
  it("registers a receiver with a key shown once and stored only as its hash", async () => {
    const rx = await register({
      location: "Bendigo fire station roof",
      expected_capcodes: ["0200001"],
      expected_agency_ids: [cfa],
    });
    expect(rx.key.key).toMatch(/^trk_/);
    const stored = await app.db.select().from(receiverKeys).where(eq(receiverKeys.receiverId, rx.id));
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(rx.key.key);
    const list = (await asAdmin("GET", "/api/admin/receivers")).json().data;
    const shown = list.find((r: { id: number }) => r.id === rx.id);
    expect(shown).toMatchObject({
      state: "unknown",
      location: "Bendigo fire station roof",
      agency_ids: [cfa],
      keys: [{ id: rx.key.id, key_prefix: rx.key.key_prefix, valid: true }],
    });
    expect(JSON.stringify(list)).not.toContain(rx.key.key);
    // The legacy receiver (INGEST_API_KEY) is listed first.
    expect(list[0]).toMatchObject({ kind: "legacy" });
  });

  it("refuses bad input with the field named, and members with 403", async () => {
    const bad = await asAdmin("POST", "/api/admin/receivers", { name: "", heartbeat_interval_seconds: 1 });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain("name");
    const unknownAgency = await asAdmin("POST", "/api/admin/receivers", {
      name: "X",
      expected_agency_ids: [999999],
    });
    expect(unknownAgency.statusCode).toBe(400);
    const member = await signIn(app, (await createUser(app)).phone);
    const refused = await app.inject({
      method: "GET",
      url: "/api/admin/receivers",
      headers: { authorization: `Bearer ${member}` },
    });
    expect(refused.statusCode).toBe(403);
    expect((await asAdmin("PATCH", "/api/admin/receivers/999999", { name: "Y" })).statusCode).toBe(404);
  });

  it("records the receiver on every stored message; several receivers' copies stay one alert heard by each", async () => {
    const a = await register();
    const b = await register();
    const text = page();
    const first = await ingestWith(a.key.key, { capcode: "0200001", message: text });
    expect(first.statusCode).toBe(200);
    const second = await ingestWith(b.key.key, { messages: [{ capcode: "0200001", message: text }] });
    expect(second.json()).toMatchObject({ created: 0, duplicates: 1 });
    const alertId = first.json().data[0].id;
    expect(second.json().data[0].id).toBe(alertId);
    const legacy = await ingestWith(LEGACY_KEY, { capcode: "0200001", message: text });
    expect(legacy.json().data[0].id).toBe(alertId);

    const heard = await asAdmin("GET", `/api/admin/alerts/${alertId}/receivers`);
    expect(heard.statusCode).toBe(200);
    expect(
      heard
        .json()
        .data.map((r: { receiver_id: number }) => r.receiver_id)
        .sort(),
    ).toEqual(
      [a.id, b.id, heard.json().data.find((r: { kind: string }) => r.kind === "legacy").receiver_id].sort(),
    );
    // PagerMon's endpoint records its receiver too.
    const form = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: a.key.key, "content-type": "application/x-www-form-urlencoded" },
      payload: `address=0200001&message=${encodeURIComponent(page())}`,
    });
    expect(form.statusCode).toBe(200);
    const [row] = await app.db
      .select()
      .from(alertReceivers)
      .where(eq(alertReceivers.alertId, Number(form.body)));
    expect(row).toMatchObject({ receiverId: a.id, messages: 1 });
    // Pages per hour (the tab's sparkline) count the alerts each receiver heard.
    const listed = (await asAdmin("GET", "/api/admin/receivers")).json().data;
    const sparkOf = (id: number) =>
      (listed.find((r: { id: number }) => r.id === id).pages_per_hour as number[]).reduce((x, y) => x + y, 0);
    expect(sparkOf(a.id)).toBe(2);
    expect(sparkOf(b.id)).toBe(1);
    // A page counts as a sign of life and as the last page.
    const [rx] = await app.db.select().from(receivers).where(eq(receivers.id, a.id));
    expect(rx!.lastSeenAt).not.toBeNull();
    expect(rx!.lastMessageAt).not.toBeNull();
  });

  it("rotates without downtime: both keys work during the grace, the old one stops after it", async () => {
    const rx = await register();
    const rotated = await asAdmin("POST", `/api/admin/receivers/${rx.id}/keys`, { grace_hours: 1 });
    expect(rotated.statusCode).toBe(201);
    const fresh = rotated.json().data.key as string;
    expect((await heartbeat(rx.key.key)).statusCode).toBe(200);
    expect((await heartbeat(fresh)).statusCode).toBe(200);
    const keys = (await asAdmin("GET", "/api/admin/receivers"))
      .json()
      .data.find((r: { id: number }) => r.id === rx.id).keys;
    expect(keys).toHaveLength(2);
    expect(keys.find((k: { id: number }) => k.id === rx.key.id).expires_at).not.toBeNull();

    // A rotation with no grace ends the earlier keys now.
    const again = await asAdmin("POST", `/api/admin/receivers/${rx.id}/keys`, { grace_hours: 0 });
    const newest = again.json().data.key as string;
    expect((await heartbeat(rx.key.key)).statusCode).toBe(401);
    expect((await heartbeat(fresh)).statusCode).toBe(401);
    expect((await heartbeat(newest)).statusCode).toBe(200);
    expect(
      (await asAdmin("POST", `/api/admin/receivers/${rx.id}/keys`, { grace_hours: -1 })).statusCode,
    ).toBe(400);
  });

  it("revokes a key at once, and deleting a receiver ends all its keys", async () => {
    const rx = await register();
    expect((await heartbeat(rx.key.key)).statusCode).toBe(200);
    const revoked = await asAdmin("DELETE", `/api/admin/receivers/${rx.id}/keys/${rx.key.id}`);
    expect(revoked.statusCode).toBe(200);
    expect((await heartbeat(rx.key.key)).statusCode).toBe(401);
    expect((await asAdmin("DELETE", `/api/admin/receivers/${rx.id}/keys/${rx.key.id}`)).statusCode).toBe(404);

    const other = await register();
    expect((await asAdmin("DELETE", `/api/admin/receivers/${other.id}`)).statusCode).toBe(200);
    expect((await heartbeat(other.key.key)).statusCode).toBe(401);
    const list = (await asAdmin("GET", "/api/admin/receivers")).json().data;
    expect(list.some((r: { id: number }) => r.id === other.id)).toBe(false);
  });

  it("keeps the legacy INGEST_API_KEY working as the legacy receiver, which cannot be deleted", async () => {
    const res = await heartbeat(LEGACY_KEY, { version: "pagermon-0.3" });
    expect(res.statusCode).toBe(200);
    const legacyId = res.json().receiver_id as number;
    const [row] = await app.db.select().from(receivers).where(eq(receivers.id, legacyId));
    expect(row).toMatchObject({ kind: "legacy" });
    expect((await asAdmin("DELETE", `/api/admin/receivers/${legacyId}`)).statusCode).toBe(400);
  });

  it("keeps a heartbeat's status, and refuses a malformed one", async () => {
    const rx = await register();
    const res = await heartbeat(rx.key.key, {
      spool_depth: 3,
      dead_letters: 1,
      decoder: "ok",
      decoder_last_line_at: new Date().toISOString(),
      uptime_seconds: 3600,
      version: "turnout-reader 1.2",
    });
    expect(res.statusCode).toBe(200);
    const shown = (await asAdmin("GET", "/api/admin/receivers"))
      .json()
      .data.find((r: { id: number }) => r.id === rx.id);
    expect(shown).toMatchObject({
      spool_depth: 3,
      dead_letters: 1,
      decoder: "ok",
      uptime_seconds: 3600,
      version: "turnout-reader 1.2",
      current_state: "ok",
    });
    expect(shown.last_heartbeat_at).not.toBeNull();
    const bad = await heartbeat(rx.key.key, { spool_depth: -1, decoder: "exploded" });
    expect(bad.statusCode).toBe(400);
    expect((await heartbeat("not-a-key-at-all-000000")).statusCode).toBe(401);
  });
});

describe("the silence checker", () => {
  const minute = 60_000;
  const notices = async () =>
    (
      await app.db.select().from(smsQueue).where(eq(smsQueue.toPhone, adminPhone)).orderBy(asc(smsQueue.id))
    ).map((s) => s.body);

  it("moves a receiver through late, down and recovered, telling admins once per change, with log entries", async () => {
    // Other receivers of this file are left out of the count: only this one's notices are read.
    await app.db.update(receivers).set({ deletedAt: new Date() }).where(sql`${receivers.kind} <> 'legacy'`);
    await app.db.update(receivers).set({ lastSeenAt: null, state: "unknown" });
    // The admin's device takes push (an endpoint on loopback that nothing answers).
    const [adminRow] = await app.db.select().from(users).where(eq(users.phone, adminPhone));
    const [session] = await app.db
      .select()
      .from(deviceSessions)
      .where(eq(deviceSessions.userId, adminRow!.id));
    await app.db.insert(pushSubscriptions).values({
      sessionId: session!.id,
      userId: adminRow!.id,
      endpoint: "http://127.0.0.1:9/push/admin-device",
      p256dh: "not-a-key",
      auth: "not-a-secret",
    });
    const rx = await register({ heartbeat_interval_seconds: 60, down_after_seconds: 600 });
    const name = `Rx ${seq}`;
    const start = Date.now();
    const config = app.config.monitor;
    expect((await heartbeat(rx.key.key)).statusCode).toBe(200);
    const mine = async () => (await notices()).filter((b) => b.includes(name));

    await checkMonitor(app.db, config, () => start + minute);
    const stateOf = async () =>
      (await app.db.select().from(receivers).where(eq(receivers.id, rx.id)))[0]!.state;
    expect(await stateOf()).toBe("ok");
    expect(await mine()).toEqual([]);

    const late = await checkMonitor(app.db, config, () => start + 2 * minute + 5_000);
    expect(late.receiverChanges).toMatchObject([{ id: rx.id, from: "ok", to: "late", change: "late" }]);
    await checkMonitor(app.db, config, () => start + 3 * minute);
    expect(await mine()).toHaveLength(1);
    expect((await mine())[0]).toContain("is late");

    await checkMonitor(app.db, config, () => start + 11 * minute);
    await checkMonitor(app.db, config, () => start + 12 * minute);
    expect(await stateOf()).toBe("down");
    expect(await mine()).toHaveLength(2);
    expect((await mine())[1]).toContain("is DOWN");

    // The health card: down, and the only receiver expected for nobody in particular: a warning.
    const dashboard = await asAdmin("GET", "/api/admin/system/dashboard");
    expect(dashboard.json().data.health.warnings).toContain(`Receiver ${name} is down`);

    expect((await heartbeat(rx.key.key)).statusCode).toBe(200);
    await checkMonitor(app.db, config, () => Date.now());
    await checkMonitor(app.db, config, () => Date.now());
    expect(await stateOf()).toBe("ok");
    expect(await mine()).toHaveLength(3);
    expect((await mine())[2]).toContain("recovered");

    // The same notices by push to the admin's device, one per change.
    const pushed = (await app.db.select().from(pushDeliveries).orderBy(asc(pushDeliveries.id)))
      .map((p) => JSON.parse(p.payload) as { title: string; body: string; tag: string })
      .filter((p) => p.body.includes(name));
    expect(pushed.map((p) => p.title)).toEqual(["Receiver late", "Receiver down", "Receiver recovered"]);
    expect(new Set(pushed.map((p) => p.tag))).toEqual(new Set([`receiver-${rx.id}`]));

    const logs = await app.db
      .select()
      .from(systemLogs)
      .where(eq(systemLogs.category, "receivers"))
      .orderBy(asc(systemLogs.id));
    expect(logs.filter((l) => l.message.includes(name)).map((l) => l.level)).toEqual([
      "warn",
      "error",
      "info",
    ]);
  });

  it("is critical on the health card when the down receiver is the only one for an agency", async () => {
    const rx = await register({ expected_agency_ids: [cfa] });
    expect((await heartbeat(rx.key.key)).statusCode).toBe(200);
    await checkMonitor(app.db, app.config.monitor, () => Date.now() + 24 * 3600_000);
    const health = (await asAdmin("GET", "/api/admin/system/dashboard")).json().data.health;
    expect(health.overall).toBe("critical");
    expect(health.issues).toContain(`Receiver Rx ${seq} is down and is the only receiver for CFA`);
    await heartbeat(rx.key.key);
    await checkMonitor(app.db, app.config.monitor);
  });

  it("is quiet when it heartbeats but hears nothing for its quiet period", async () => {
    const rx = await register({ quiet_after_seconds: 3600 });
    await heartbeat(rx.key.key);
    // A heartbeat 'now' at a clock 2 hours on: the page is older than the quiet period.
    await app.db
      .update(receivers)
      .set({ lastMessageAt: new Date(Date.now() - 2 * 3600_000) })
      .where(eq(receivers.id, rx.id));
    const out = await checkMonitor(app.db, app.config.monitor);
    expect(out.receiverChanges).toContainEqual(expect.objectContaining({ id: rx.id, to: "quiet" }));
    await app.db.update(receivers).set({ lastMessageAt: new Date() }).where(eq(receivers.id, rx.id));
    const back = await checkMonitor(app.db, app.config.monitor);
    expect(back.receiverChanges).toContainEqual(
      expect.objectContaining({ id: rx.id, to: "ok", change: "recovered" }),
    );
  });

  it("lets the legacy receiver rest, without a notice, once INGEST_API_KEY is no longer set", async () => {
    const [legacyRow] = await app.db.select().from(receivers).where(eq(receivers.kind, "legacy"));
    await app.db
      .update(receivers)
      .set({ state: "down", lastSeenAt: new Date(Date.now() - 86_400_000) })
      .where(eq(receivers.id, legacyRow!.id));
    const before = (await notices()).length;
    const out = await checkMonitor(app.db, app.config.monitor, Date.now, false);
    expect(out.receiverChanges).toContainEqual(
      expect.objectContaining({ id: legacyRow!.id, from: "down", to: "unknown", change: null }),
    );
    expect((await notices()).length).toBe(before);
  });

  it("raises a delivery alarm for SMS failures above the threshold, once, and a recovery notice", async () => {
    const config = { ...app.config.monitor, smsFailures: 3 };
    const before = (await notices()).length;
    await app.db.insert(smsQueue).values(
      Array.from({ length: 3 }, () => ({
        toPhone: "+61400000001",
        body: "x",
        kind: "notice",
        status: "failed",
        lastError: "provider said no",
      })),
    );
    const out = await checkMonitor(app.db, config);
    expect(out.alarmChanges).toEqual([{ key: "sms_failures", state: "alarm", value: 3 }]);
    await checkMonitor(app.db, config);
    const health = (await asAdmin("GET", "/api/admin/system/dashboard")).json().data.health;
    expect(health.warnings.join(" ")).toContain("SMS provider failures: 3");
    await app.db
      .update(smsQueue)
      .set({ updatedAt: new Date(Date.now() - 3600_000) })
      .where(eq(smsQueue.toPhone, "+61400000001"));
    const back = await checkMonitor(app.db, config);
    expect(back.alarmChanges).toEqual([{ key: "sms_failures", state: "ok", value: 0 }]);
    const added = (await notices()).slice(before);
    expect(added.filter((b) => b.includes("SMS provider failures"))).toHaveLength(2);
  });
});

describe("two instances", () => {
  it("only one instance notifies a change, however many check at once", async () => {
    const database = await openTestDatabase();
    const config = testConfig();
    const caches = [await openTestCache(), await openTestCache()];
    const [a, b] = [
      await buildApp(config, { database, cache: caches[0], logger: createLogger("silent") }),
      await buildApp(config, { database, cache: caches[1], logger: createLogger("silent") }),
    ];
    try {
      const phone = (await createUser(a, { isAdmin: true })).phone;
      const [rx] = await a.db
        .insert(receivers)
        .values({ name: "Shared", lastSeenAt: new Date(), state: "ok" })
        .returning();
      const later = () => Date.now() + 3600_000;
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => checkMonitor((i % 2 ? a : b).db, config.monitor, later)),
      );
      expect(outcomes.flatMap((o) => o.receiverChanges).filter((c) => c.id === rx!.id)).toHaveLength(1);
      const sent = await a.db.select().from(smsQueue).where(eq(smsQueue.toPhone, phone));
      expect(sent.filter((s) => s.body.includes("Shared"))).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
      for (const c of caches) await c.close();
      await database.close();
    }
  });
});
