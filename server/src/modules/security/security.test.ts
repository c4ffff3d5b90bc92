import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn, waitForCode } from "../../../test/factories.js";
import { bruteForceLocks, securityConfig } from "../../db/schema.js";
import { SECURITY_DEFAULTS } from "../../db/security-defaults.js";
import { lockoutRemaining, recordFailure } from "../../shared/security/limits.js";

let app: TestApp;
let admin: Record<string, string>;
let user: Record<string, string>;

const call = (
  method: "GET" | "POST" | "PUT",
  url: string,
  headers: Record<string, string>,
  payload?: object,
) => app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  app = await buildTestApp();
  admin = { authorization: `Bearer ${await signIn(app, (await createUser(app, { isAdmin: true })).phone)}` };
  user = { authorization: `Bearer ${await signIn(app, (await createUser(app)).phone)}` };
});
afterAll(() => app.cleanup());

describe("admin security API", () => {
  it("is for admins only", async () => {
    const routes: [Parameters<typeof call>[0], string, object?][] = [
      ["GET", "/api/admin/security/config"],
      ["PUT", "/api/admin/security/config/otp_max_failed_attempts", { value: 3 }],
      ["GET", "/api/admin/security/stats"],
      ["GET", "/api/admin/security/brute-force"],
      ["POST", "/api/admin/security/brute-force/clear", { identifier: "phone:+61400000000" }],
      ["GET", "/api/admin/security/otp-attempts"],
      ["GET", "/api/admin/security/events"],
      ["GET", "/api/admin/security/actions"],
      ["GET", "/api/admin/security/users/1/status"],
      ["POST", "/api/admin/security/users/1/reset-otp"],
      ["POST", "/api/admin/security/phone/+61400000000/reset-otp"],
      ["POST", "/api/admin/security/cleanup"],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method, url, user, body)).statusCode, `${method} ${url}`).toBe(403);
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it("changes a lockout limit without a code change, and the new limit applies at once", async () => {
    const set = await call("PUT", "/api/admin/security/config/otp_failures_per_ip_phone", admin, {
      value: 2,
    });
    expect(set.statusCode).toBe(200);
    const config = (await call("GET", "/api/admin/security/config", admin)).json().data;
    expect(config.find((c: { key: string }) => c.key === "otp_failures_per_ip_phone")).toMatchObject({
      value: 2,
      default_value: 5,
    });

    const victim = await createUser(app);
    await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone: victim.phone } });
    const code = await waitForCode(app, victim.phone);
    const wrong = code === "111111" ? "222222" : "111111";
    const verify = (otp: string) =>
      app.inject({
        method: "POST",
        url: "/api/auth/verify-otp",
        headers: { "x-device-id": "d" },
        payload: { phone: victim.phone, otp_code: otp },
      });
    expect((await verify(wrong)).statusCode).toBe(400);
    expect((await verify(wrong)).statusCode).toBe(429);

    const locks = (await call("GET", "/api/admin/security/brute-force", admin)).json().data;
    const lock = locks.find((l: { identifier: string }) => l.identifier.endsWith(`|${victim.phone}`));
    expect(lock).toMatchObject({ is_locked: true, kind: "ip_phone", failures: 2 });
    expect(lock.display).toMatch(/^ip-phone:.+\|/);
    expect(lock.display).not.toContain(victim.phone);
    const daily = locks.find((l: { identifier: string }) => l.identifier === `phone:${victim.phone}`);
    expect(daily).toMatchObject({ kind: "phone", failures: 2, is_locked: false });
    expect(daily.display).not.toContain(victim.phone);

    const status = (await call("GET", `/api/admin/security/users/${victim.id}/status`, admin)).json().data;
    expect(status).toMatchObject({ failures: 2, is_locked: false });

    expect((await call("POST", `/api/admin/security/users/${victim.id}/reset-otp`, admin)).statusCode).toBe(
      200,
    );
    const after = (await call("GET", `/api/admin/security/users/${victim.id}/status`, admin)).json().data;
    expect(after).toMatchObject({ is_locked: false, failures: 0 });
    // The reset lifted the address's lockout and voided the old code: a new one is needed.
    expect((await verify(code)).json().errorType).toBe("invalid_code");

    const actions = (await call("GET", "/api/admin/security/actions", admin)).json().data;
    expect(actions.map((a: { event_type: string }) => a.event_type)).toEqual(
      expect.arrayContaining(["admin_config_changed", "admin_otp_reset"]),
    );
    await call("PUT", "/api/admin/security/config/otp_failures_per_ip_phone", admin, { value: 5 });
  });

  it("lists every sign-in limit with its default and description", async () => {
    const config = (await call("GET", "/api/admin/security/config", admin)).json().data;
    const byKey = new Map(config.map((c: { key: string }) => [c.key, c]));
    for (const key of <const>[
      "otp_requests_per_phone_all",
      "otp_failures_per_ip_phone",
      "otp_failures_per_ip",
      "otp_daily_failures_per_phone",
      "otp_guarded_requests_per_phone",
      "otp_guarded_max_failed_attempts",
    ]) {
      const { value, description } = SECURITY_DEFAULTS[key];
      expect(byKey.get(key), key).toMatchObject({ value, default_value: value, description });
    }
  });

  it("counts failures afresh after a day without one, and locks longer each time", async () => {
    const key = "ip:192.0.2.99";
    const fail = () => recordFailure(app.db, key, "ip", 2, 60);
    expect(await fail()).toEqual({ failures: 1, lockedSeconds: 0 });
    expect(await fail()).toEqual({ failures: 2, lockedSeconds: 60 });
    expect(await fail()).toEqual({ failures: 3, lockedSeconds: 0 });
    expect(await fail()).toEqual({ failures: 4, lockedSeconds: 120 });
    expect(await lockoutRemaining(app.db, key)).toBeGreaterThan(110);
    await app.db
      .update(bruteForceLocks)
      .set({ updatedAt: new Date(Date.now() - 86_401_000), lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(bruteForceLocks.identifier, key));
    expect(await fail()).toEqual({ failures: 1, lockedSeconds: 0 });
    expect(await lockoutRemaining(app.db, key)).toBe(0);
  });

  it("masks phones in attempts and rejects bad settings", async () => {
    const attempts = (await call("GET", "/api/admin/security/otp-attempts?limit=5", admin)).json().data;
    expect(attempts.length).toBeGreaterThan(0);
    for (const a of attempts) expect(a.phone).toMatch(/•/);
    for (const [key, value] of [
      ["nope", 1],
      ["otp_max_failed_attempts", 0],
      ["otp_max_failed_attempts", "ten"],
    ] as const) {
      expect((await call("PUT", `/api/admin/security/config/${key}`, admin, { value })).statusCode).toBe(400);
    }
  });

  it("answers an unknown key 400 naming it, and stores no row for it", async () => {
    const res = await call("PUT", "/api/admin/security/config/otp_made_up", admin, { value: 3 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    expect(res.json().message).toContain("Unknown setting 'otp_made_up'");
    expect(await app.db.select().from(securityConfig).where(eq(securityConfig.key, "otp_made_up"))).toEqual(
      [],
    );
  });

  it("checks each key's value against that key's range", async () => {
    const set = (key: string, value: number) =>
      call("PUT", `/api/admin/security/config/${key}`, admin, { value });
    const short = await set("otp_expiry_seconds", 30);
    expect(short.statusCode).toBe(400);
    expect(short.json().message).toBe("otp_expiry_seconds must be a whole number from 60 to 3600");
    expect((await set("max_device_sessions", 21)).statusCode).toBe(400);
    expect((await set("max_device_sessions", 20)).statusCode).toBe(200);
    expect((await set("max_device_sessions", 2)).statusCode).toBe(200);
  });

  it("summarises the last day and cleans up old records", async () => {
    const stats = (await call("GET", "/api/admin/security/stats", admin)).json().data;
    expect(stats.attempts_24h.succeeded).toBeGreaterThan(0);
    const cleanup = await call("POST", "/api/admin/security/cleanup", admin);
    expect(cleanup.json().data).toMatchObject({ retention_days: 90 });
  });
});
