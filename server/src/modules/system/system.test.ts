import os from "node:os";
import { desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testEngine } from "../../../test/build-app.js";
import { createUser, signIn, waitForCode } from "../../../test/factories.js";
import {
  agencies,
  alerts,
  messageCountDeltas,
  messageCounts,
  securityConfig,
  systemLogs,
} from "../../db/schema.js";
import { writeSystemLog } from "../../system-log.js";

const KEY = "system-test-ingest-key-0123456789";
let app: TestApp;
let adminToken: string;
let memberToken: string;
let admin: Awaited<ReturnType<typeof createUser>>;

const get = (url: string, token: string | null = adminToken) =>
  app.inject({
    method: "GET",
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
const post = (url: string, token: string | null = adminToken) =>
  app.inject({
    method: "POST",
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
const ingest = (messages: { capcode: string; message: string }[]) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { "x-api-key": KEY },
    payload: { messages },
  });

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY, APP_ENV: "development" });
  // Before the app is ready: a route that fails the way an unexpected bug does.
  app.get("/api/test/boom", { config: { access: "public" } }, async () => {
    throw new Error("exploded while texting +61412345678");
  });
  admin = await createUser(app, { isAdmin: true, firstName: "Alex", agencyCodes: ["CFA", "SES"] });
  const member = await createUser(app, { firstName: "Morgan" });
  adminToken = await signIn(app, admin.phone);
  memberToken = await signIn(app, member.phone);
});
afterAll(() => app.cleanup());

describe("GET /api/admin/system/metrics", () => {
  it("reports this process, this host and the database it really uses", async () => {
    const res = await get("/admin/system/metrics");
    expect(res.statusCode).toBe(200);
    const { system, application, database, redis } = res.json().data;
    expect(system.load_average).toHaveLength(3);
    expect(system.total_cores).toBeGreaterThan(0);
    expect(system.cores).toHaveLength(system.total_cores);
    expect(system.cores[0]).toEqual({ core_id: 0, usage: expect.any(Number) });
    expect(system.cpu_usage).toBeGreaterThanOrEqual(0);
    expect(system.cpu_usage).toBeLessThanOrEqual(100);
    expect(system.memory.total).toBeGreaterThan(system.memory.used);
    expect(system.memory.used + system.memory.available).toBe(system.memory.total);
    expect(typeof system.hostname).toBe("string");
    // Milliseconds, as the monitor reads them (it showed a host up for hours as '6s' when they were seconds).
    expect(Math.abs(system.host_uptime - os.uptime() * 1000)).toBeLessThan(60_000);

    expect(application).toMatchObject({
      version: "0.1.0",
      environment: "development",
      process_id: process.pid,
      node_version: process.version,
    });
    expect(Math.abs(application.uptime - process.uptime() * 1000)).toBeLessThan(60_000);
    expect(application.memory_usage.rss).toBeGreaterThan(application.memory_usage.heapUsed);
    expect(Date.parse(application.start_time)).toBeLessThan(Date.now());
    expect(Date.parse(application.last_compile)).toBeLessThanOrEqual(Date.now());

    expect(database).toMatchObject({ status: "connected", database_size: expect.any(Number) });
    expect(database.query_time).toBeGreaterThanOrEqual(0);
    expect(database.cache_hit_ratio).toBeGreaterThan(0);
    if (testEngine === "pglite") {
      expect(database.engine).toBe("pglite");
      expect(database.version).toMatch(/^PGlite \(PostgreSQL \d+/);
      expect(database.not_applicable).toEqual(["connections_ratio", "max_connections", "slow_queries"]);
      expect(database.max_connections).toBeNull();
    } else {
      expect(database.engine).toBe("postgresql");
      expect(database.version).toMatch(/^PostgreSQL \d+/);
      expect(database.not_applicable).toEqual([]);
      expect(database.max_connections).toBeGreaterThan(0);
      expect(database.active_connections).toBeGreaterThan(0);
      expect(database.slow_queries).toBeGreaterThanOrEqual(0);
    }

    if (process.env.REDIS_URL) {
      expect(redis.status).toBe("connected");
      expect(redis.version).toMatch(/^\d+\.\d+/);
      expect(redis.connected_clients).toBeGreaterThan(0);
    } else {
      expect(redis).toMatchObject({ status: "not_configured", version: null, connected_clients: null });
    }
  });
});

describe("sessions", () => {
  it("lists every active session with its user, and counts them", async () => {
    const list = await get("/admin/sessions");
    expect(list.statusCode).toBe(200);
    const sessions = list.json().data;
    expect(sessions.map((s: { user_name: string }) => s.user_name).sort()).toEqual([
      "Alex Tester",
      "Morgan Tester",
    ]);
    expect(Object.keys(sessions[0]).sort()).toEqual(
      ["created_at", "device_info", "id", "ip_address", "last_activity", "user_id", "user_name"].sort(),
    );
    expect(sessions.find((s: { user_id: number }) => s.user_id === admin.id).ip_address).toBe("127.0.0.1");

    for (const url of ["/admin/sessions/stats", "/admin/system/sessions"]) {
      const stats = (await get(url)).json().data;
      expect(stats).toMatchObject({
        total_active_sessions: 2,
        unique_users: 2,
        recent_activity: { last_hour: 2, last_24h: 2 },
      });
      const devices = stats.sessions_by_device;
      expect(devices.mobile + devices.desktop + devices.tablet + devices.unknown).toBe(2);
      expect(stats.agency_distribution).toEqual([
        { agency_name: "Country Fire Authority", active_sessions: 2 },
        { agency_name: "State Emergency Service", active_sessions: 1 },
      ]);
    }
  });
});

describe("message metrics", () => {
  beforeEach(async () => {
    // The rule matcher's transaction locks its queue, then alerts; TRUNCATE ... CASCADE takes them the
    // other way round, so the two could deadlock: the matcher waits (nothing else here needs it).
    await app.ruleMatcher.stop();
    try {
      await app.db.execute(sql`TRUNCATE alerts CASCADE`);
    } finally {
      app.ruleMatcher.start();
    }
  });

  it("counts today and this hour after ingesting, by type and agency, from the counters", async () => {
    const res = await ingest([
      { capcode: "0100001", message: "@@ALERT F251108001 STRUC1 SHED FIRE" },
      { capcode: "0100002", message: "Hb F251108002 NOSTC1 SMOKE SIGHTED" },
      { capcode: "0100003", message: "@@ALERT F251108003 G&SC3 GRASS FIRE" },
    ]);
    expect(res.json().created).toBe(3);
    // Messages received three and ten days ago count in the total, not today.
    const [one] = await app.db.select().from(alerts).limit(1);
    const { id: _id, createdAt: _c, ...copy } = one!;
    for (const days of [3, 10]) {
      await app.db.insert(alerts).values({
        ...copy,
        type: "standard",
        dedupeHash: `old-${days}`,
        sourceMessageId: null,
        createdAt: sql`now() - make_interval(days => ${days})`,
      });
    }

    const data = (await get("/admin/system/messages")).json().data;
    expect(data).toMatchObject({
      total_messages: 5,
      messages_today: 3,
      messages_this_hour: 3,
      estimated: [],
    });
    // Five messages since the first, ten days ago.
    expect(data.average_per_day).toBeGreaterThanOrEqual(0.4);
    expect(data.average_per_day).toBeLessThanOrEqual(0.5);
    expect(data.type_distribution).toEqual([
      { type: "emergency", count: 2, percentage: 40 },
      { type: "standard", count: 2, percentage: 40 },
      { type: "non-emergency", count: 1, percentage: 20 },
    ]);
    expect(data.agency_distribution).toEqual([
      { agency_name: "Unmapped Capcodes", message_count: 5, percentage: 100 },
    ]);
    // Hours older than two days were merged into one row per type and agency, at the earliest hour.
    const aged = await app.db
      .select()
      .from(messageCounts)
      .where(sql`${messageCounts.hour} < now() - interval '2 days'`);
    expect(aged).toHaveLength(1);
    expect(aged[0]).toMatchObject({ type: "standard", count: 2 });
    expect(Date.now() - aged[0]!.hour.getTime()).toBeGreaterThan(10 * 86_400_000 - 3_600_000);
    // Counted changes were folded into the hourly counters by the read.
    expect(await app.db.select().from(messageCountDeltas)).toEqual([]);
  });

  it("follows deletions and agency changes, and never counts the alerts table itself", async () => {
    await ingest([
      { capcode: "0100011", message: "@@ALERT F251108011 STRUC1 HOUSE FIRE" },
      { capcode: "0100012", message: "QD TEST PAGE" },
    ]);
    const [cfa] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
    await app.db.update(alerts).set({ agencyId: cfa!.id }).where(eq(alerts.type, "emergency"));
    await app.db.delete(alerts).where(eq(alerts.type, "administrative"));
    const data = (await get("/admin/system/messages")).json().data;
    expect(data.total_messages).toBe(1);
    expect(data.agency_distribution).toEqual([
      { agency_name: "Country Fire Authority", message_count: 1, percentage: 100 },
    ]);

    // With the counters emptied behind its back, the figures drop to zero though the alert is still
    // stored: they come from the counters, not from a count over alerts.
    await app.db.delete(messageCounts);
    await app.db.delete(messageCountDeltas);
    expect((await app.db.select().from(alerts)).length).toBe(1);
    expect((await get("/admin/system/messages")).json().data).toMatchObject({
      total_messages: 0,
      messages_today: 0,
      type_distribution: [],
    });
  });
});

describe("system log", () => {
  beforeEach(async () => {
    await app.db.delete(systemLogs);
  });

  it("lists entries newest first with the total, filters by level and pages", async () => {
    for (const [level, message] of [
      ["info", "first"],
      ["error", "second"],
      ["warn", "third"],
      ["error", "fourth"],
    ] as const) {
      await writeSystemLog(app.db, { level, category: "server", message });
    }
    const res = await get("/admin/system/logs");
    expect(res.statusCode).toBe(200);
    expect(res.json().total).toBe(4);
    expect(res.json().data.map((e: { message: string }) => e.message)).toEqual([
      "fourth",
      "third",
      "second",
      "first",
    ]);
    expect(Object.keys(res.json().data[0]).sort()).toEqual(
      ["category", "details", "id", "ip_address", "level", "message", "timestamp"].sort(),
    );
    const errors = (await get("/admin/system/logs?level=error&limit=1")).json();
    expect(errors.total).toBe(2);
    expect(errors.data.map((e: { message: string }) => e.message)).toEqual(["fourth"]);
    expect((await get("/admin/system/logs?level=fatal")).statusCode).toBe(400);
  });

  it("clears the log and records who cleared it as an admin action", async () => {
    await writeSystemLog(app.db, { level: "warn", category: "ingest", message: "old" });
    const res = await post("/admin/system/logs/clear");
    expect(res.json()).toMatchObject({ success: true, data: { cleared: 1 } });
    const after = (await get("/admin/system/logs")).json();
    expect(after.total).toBe(1);
    expect(after.data[0]).toMatchObject({
      level: "info",
      category: "admin",
      message: "System log cleared (1 entries)",
      details: { admin_id: admin.id, cleared: 1 },
      ip_address: "127.0.0.1",
    });
  });

  it("records an unexpected server error, the phone in it masked", async () => {
    const res = await app.inject({ method: "GET", url: "/api/test/boom" });
    expect(res.statusCode).toBe(500);
    const serverRows = () => app.db.select().from(systemLogs).where(eq(systemLogs.category, "server"));
    // Written after the reply, without holding it up.
    await expect.poll(async () => (await serverRows()).length).toBe(1);
    const [entry] = await serverRows();
    expect(entry).toMatchObject({ level: "error", details: { route: "/api/test/boom", error: "Error" } });
    expect(entry!.message).toContain("GET /api/test/boom");
    expect(entry!.message).not.toContain("12345678");
    expect(entry!.message).toContain("+614•••••678");
  });

  it("records a sign-in lockout as a security warning, phone masked", async () => {
    await app.db
      .update(securityConfig)
      .set({ value: "3" })
      .where(eq(securityConfig.key, "otp_failures_per_ip_phone"));
    const user = await createUser(app);
    const from = { remoteAddress: "203.0.113.77" };
    await app.inject({
      method: "POST",
      url: "/api/auth/request-otp",
      payload: { phone: user.phone },
      ...from,
    });
    const code = await waitForCode(app, user.phone);
    const wrong = code === "123456" ? "654321" : "123456";
    let status = 0;
    for (let i = 0; i < 3; i++) {
      status = (
        await app.inject({
          method: "POST",
          url: "/api/auth/verify-otp",
          payload: { phone: user.phone, otp_code: wrong },
          headers: { "x-device-id": "device-attacker" },
          ...from,
        })
      ).statusCode;
    }
    expect(status).toBe(429);
    const rows = await app.db
      .select()
      .from(systemLogs)
      .where(eq(systemLogs.category, "security"))
      .orderBy(desc(systemLogs.id));
    expect(rows[0]).toMatchObject({
      level: "warn",
      message: expect.stringMatching(/^Security: otp lockout for \+614/),
      ipAddress: "203.0.113.77",
      details: { event_type: "otp_lockout", user_id: user.id },
    });
    expect(JSON.stringify(rows)).not.toContain(user.phone);
  });

  it("records an ingest batch with refused messages", async () => {
    const res = await ingest([
      { capcode: "0100021", message: "@@ALERT FINE" },
      { capcode: "not-a-capcode", message: "REFUSED" },
    ]);
    expect(res.json().refused).toHaveLength(1);
    const [entry] = await app.db.select().from(systemLogs).where(eq(systemLogs.category, "ingest"));
    expect(entry).toMatchObject({
      level: "warn",
      message: expect.stringMatching(/^Ingest refused 1 of 2 messages from /),
      details: { refused: [expect.objectContaining({ index: 1 })] },
    });
  });
});

describe("GET /api/admin/system/dashboard", () => {
  it("answers everything the monitor's first paint needs in one call", async () => {
    await app.db.delete(systemLogs);
    await writeSystemLog(app.db, { level: "info", category: "server", message: "hello" });
    const res = await get("/admin/system/dashboard");
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual([
      "health",
      "logs",
      "media_queue",
      "messages",
      "metrics",
      "sessions",
      "sms",
    ]);
    expect(data.media_queue).toMatchObject({ concurrency: 1, ffmpeg_threads: 1, waiting: 0, running: 0 });
    expect(data.health.environment).toBe("development");
    expect(["healthy", "warning", "critical"]).toContain(data.health.overall);
    if (!process.env.REDIS_URL) {
      // One instance without Redis is a normal install: information, not a warning (issue 26).
      expect(data.health.notes).toEqual(["Single instance (no Redis)"]);
      expect(data.health.warnings.join(" ")).not.toMatch(/cache store|Redis/i);
      expect(data.health.issues).not.toContain("Cache store is not connected");
    } else {
      expect(data.health.notes).toEqual([]);
      expect(data.health.issues).not.toContain("Cache store is not connected");
    }
    expect(data.metrics.application.process_id).toBe(process.pid);
    expect(data.sessions.total_active_sessions).toBeGreaterThanOrEqual(2);
    expect(data.messages).toHaveProperty("total_messages");
    expect(data.sms).toMatchObject({ status: "not_configured", is_enabled: false });
    expect(data.logs).toMatchObject({ total: 1, data: [{ message: "hello" }] });
  });

  it("is for admins only", async () => {
    expect((await get("/admin/system/dashboard", null)).statusCode).toBe(401);
    expect((await get("/admin/system/dashboard", memberToken)).statusCode).toBe(403);
    expect((await get("/admin/sessions", memberToken)).statusCode).toBe(403);
  });
});
