import { eq } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agencies, capcodes } from "../src/db/schema.js";
import type { TestApp } from "./build-app.js";
import { createUser, signIn } from "./factories.js";
import { type PrivateRedis, privateRedis, redisServerPath } from "./redis-faults.js";
import { fill, sample } from "./route-samples.js";
import { withTwoInstances } from "./two-instances.js";

/**
 * Issue 29: Redis is optional at run time. Two instances share a private redis-server (never the
 * shared REDIS_URL one), which is killed and started again under them.
 */

const KEY = "redis-outage-test-ingest-key";
const CAPCODE = "0529001";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts unhandled rejections while a test runs: one would end a production server. */
function watchUnhandled() {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", listener);
  return { seen, stop: () => process.off("unhandledRejection", listener) };
}

function openSocket(base: string, token: string): Socket {
  return connect(base, { transports: ["polling"], auth: { token }, forceNew: true, reconnection: false });
}

const next = <T>(s: Socket, event: string, ms: number, match: (v: T) => boolean = () => true) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    const on = (v: T) => {
      if (!match(v)) return;
      clearTimeout(timer);
      s.off(event, on);
      resolve(v);
    };
    s.on(event, on);
  });

/**
 * Resolves when the socket gets the alert: as a `new-alert`, or as the newest of an `alerts:refresh`
 * (its agency's room in a burst, alert-fanout.ts).
 */
const delivered = (s: Socket, id: number, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      s.off("new-alert", onAlert);
      s.off("alerts:refresh", onRefresh);
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`alert ${id} not delivered within ${ms} ms`));
    }, ms);
    const onAlert = (x: { id: number }) => {
      if (x.id !== id) return;
      stop();
      resolve();
    };
    const onRefresh = (x: { newest?: { id: number } | null }) => {
      if (x.newest?.id !== id) return;
      stop();
      resolve();
    };
    s.on("new-alert", onAlert);
    s.on("alerts:refresh", onRefresh);
  });

async function ingest(app: TestApp, message: string) {
  const t = Date.now();
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { capcode: CAPCODE, message },
  });
  return { status: res.statusCode, ms: Date.now() - t, id: res.json().data?.[0]?.id as number | undefined };
}

async function mapCapcode(app: TestApp) {
  const [cfa] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
  await app.db.insert(capcodes).values({ capcode: CAPCODE, agencyId: cfa!.id });
}

/** A member's socket on `base`, joined to their agencies. */
/**
 * Resolves once every instance's health reads the cache store up. Each instance's cache store
 * reconnects on its own back-off (up to REDIS_RECONNECT_MAX_MS), apart from its live channel: a
 * screen told to re-read (the live channel back) can still meet a 503 from a sign-in for a moment.
 */
async function cacheUp(apps: TestApp[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const app of apps) {
    while ((await app.inject({ method: "GET", url: "/api/health" })).json().cache !== "up") {
      if (Date.now() > deadline) throw new Error(`cache not up on every instance within ${ms} ms`);
      await sleep(100);
    }
  }
}

async function memberSocket(base: string, token: string): Promise<Socket> {
  const s = openSocket(base, token);
  await next(s, "connect", 5_000);
  const joined = next(s, "joined-user-agencies", 5_000);
  s.emit("join-user-agencies");
  await joined;
  return s;
}

describe.skipIf(!redisServerPath)("a Redis outage under two instances (a private redis-server)", () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await privateRedis();
  });
  afterAll(() => redis?.stop());

  it("keeps ingest and health answering, refuses sign-in with 503, never a 500 on any route, and every screen re-reads when Redis is back", async () => {
    const unhandled = watchUnhandled();
    try {
      await withTwoInstances(
        { INGEST_API_KEY: KEY },
        async (a, b, urlOf) => {
          await mapCapcode(a);
          const member = await createUser(a, { agencyCodes: ["CFA"] });
          const adminPhone = (await createUser(a, { isAdmin: true })).phone;
          const adminToken = await signIn(a, adminPhone);
          const socket = await memberSocket(urlOf(b), await signIn(b, member.phone));
          try {
            const alerts: number[] = [];
            socket.on("new-alert", (x: { id: number }) => alerts.push(x.id));
            const refreshes: unknown[] = [];
            socket.on("alerts:refresh", (x: unknown) => refreshes.push(x));
            const drops: string[] = [];
            socket.on("disconnect", (reason: string) => drops.push(reason));

            // Through Redis: ingested on A, seen on B.
            const first = await ingest(a, "BEFORE OUTAGE STRUC1");
            await next(socket, "new-alert", 5_000, (x: { id: number }) => x.id === first.id);

            await redis.stop();
            const during = [];
            for (let i = 0; i < 10; i++) during.push(await ingest(a, `DURING OUTAGE ${i} STRUC1`));
            expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
            expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(1_500);

            for (const [url, payload] of [
              ["/api/auth/request-otp", { phone: member.phone }],
              ["/api/auth/verify-otp", { phone: member.phone, otp_code: "123456" }],
              ["/api/sessions/check-limit", { phone: member.phone, deviceId: "d" }],
            ] as const) {
              const res = await a.inject({ method: "POST", url, payload, headers: { "x-device-id": "d" } });
              expect(res.statusCode, `${url}: ${res.body}`).toBe(503);
              expect(res.headers["retry-after"]).toBe("5");
              expect(res.json()).toMatchObject({
                success: false,
                errorType: "service_unavailable",
                retryAfter: 5,
              });
            }

            const t = Date.now();
            const health = await a.inject({ method: "GET", url: "/api/health" });
            expect(Date.now() - t).toBeLessThan(1_000);
            expect(health.statusCode).toBe(200);
            expect(health.json()).toMatchObject({ status: "ok", database: "up", cache: "down" });

            // Every route of the table, called as an admin with a plausible request: never a 500.
            const failures: string[] = [];
            const routes = a.routeTable
              .flatMap((r) => [r.method].flat().map((method) => ({ method: String(method), route: r })))
              .filter(
                ({ method, route }) =>
                  route.url.startsWith("/api/") && method !== "HEAD" && method !== "OPTIONS",
              )
              // Signing out last, so the other routes run signed in.
              .sort(
                (x, y) => Number(x.route.url.includes("logout")) - Number(y.route.url.includes("logout")),
              );
            expect(routes.length).toBeGreaterThan(60);
            for (const { method, route } of routes) {
              const body = (route.schema as { body?: unknown } | undefined)?.body;
              const res = await a.inject({
                method: method as "GET",
                // An id nothing has: a route that deletes or deactivates must not end this test's member.
                url: fill(route.url, "999999"),
                headers: { authorization: `Bearer ${adminToken}`, "x-api-key": KEY },
                ...(method === "GET" || method === "DELETE"
                  ? {}
                  : { payload: (sample(body) ?? {}) as object }),
              });
              if (res.statusCode >= 500 && res.statusCode !== 503)
                failures.push(`${method} ${route.url}: ${res.statusCode} ${res.body.slice(0, 160)}`);
            }
            expect(failures).toEqual([]);

            await redis.start();
            // Both instances re-join, and B's screen is told to read its feed again.
            const refresh = await next<{ reason?: string }>(
              socket,
              "alerts:refresh",
              10_000,
              (x) => x?.reason === "gap",
            ).catch((err: Error) => {
              throw new Error(`${err.message}; the socket dropped: ${JSON.stringify(drops)}`);
            });
            expect(refresh).toMatchObject({ count: null, newest: null, reason: "gap" });
            await cacheUp([a, b], 10_000);
            const feed = await b.inject({
              method: "GET",
              url: "/api/alerts/search?limit=50",
              headers: { authorization: `Bearer ${await signIn(b, member.phone, "device-b")}` },
            });
            const feedIds = (feed.json().data as Array<{ id: number }>).map((x) => x.id);
            expect(feedIds).toEqual(expect.arrayContaining(during.map((r) => r.id)));

            // Live events cross instances again: the page, as a `new-alert`, or as the newest of an
            // `alerts:refresh` while the agency's room is still in a burst (the outage's pages used its
            // bucket up; alert-fanout.ts).
            const after = await ingest(a, "AFTER OUTAGE STRUC1");
            await delivered(socket, after.id!, 5_000);
            expect(refreshes.length).toBeGreaterThanOrEqual(1);
          } finally {
            socket.disconnect();
          }
        },
        { redisUrl: redis.url },
      );
      expect(unhandled.seen).toEqual([]);
    } finally {
      unhandled.stop();
      await redis.start();
    }
  }, 60_000);

  it("starts two instances while Redis is down, serves, and joins them up once it is there", async () => {
    await redis.stop();
    const unhandled = watchUnhandled();
    try {
      await withTwoInstances(
        { INGEST_API_KEY: KEY },
        async (a, b, urlOf) => {
          await mapCapcode(a);
          expect((await ingest(a, "NO REDIS YET STRUC1")).status).toBe(200);
          expect((await a.inject({ method: "GET", url: "/api/health" })).json()).toMatchObject({
            status: "ok",
            cache: "down",
          });
          await redis.start();
          const member = await createUser(a, { agencyCodes: ["CFA"] });
          await cacheUp([a, b], 10_000);
          const socket = await memberSocket(urlOf(b), await signIn(b, member.phone));
          try {
            await sleep(300); // the subscriber's SUBSCRIBE, queued while Redis was down, has gone out
            const sent = await ingest(a, "REDIS BACK STRUC1");
            await next(socket, "new-alert", 5_000, (x: { id: number }) => x.id === sent.id);
          } finally {
            socket.disconnect();
          }
        },
        { redisUrl: redis.url },
      );
      expect(unhandled.seen).toEqual([]);
    } finally {
      unhandled.stop();
    }
  }, 60_000);
});
