import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn, signInDevice, smsCount, waitForCode } from "../../../test/factories.js";
import { securityConfig, users } from "../../db/schema.js";

let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp();
  await app.db
    .update(securityConfig)
    .set({ value: "1000" })
    .where(eq(securityConfig.key, "otp_requests_per_ip"));
  await app.db
    .update(securityConfig)
    .set({ value: "1000" })
    .where(eq(securityConfig.key, "otp_requests_per_phone"));
});
afterAll(() => app.cleanup());

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const profileStatus = async (token: string) =>
  (await app.inject({ method: "GET", url: "/api/auth/profile", headers: auth(token) })).statusCode;

async function codeFor(phone: string) {
  const before = smsCount(app, phone);
  await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone } });
  return waitForCode(app, phone, before);
}

describe("device-session limit", () => {
  it("lets a third device choose a session to sign out once its code is right; the chosen one gets 401", async () => {
    const user = await createUser(app);
    const tokenA = await signIn(app, user.phone, "device-a");
    const tokenB = await signIn(app, user.phone, "device-b");

    // A device that never signed in learns nothing from the check: the limit comes after the code.
    const check = await app.inject({
      method: "POST",
      url: "/api/sessions/check-limit",
      payload: { phone: user.phone, deviceId: "device-c" },
    });
    expect(check.json()).toEqual({ success: true, canCreate: true, sessions: [], maxSessions: 2 });

    const code = await codeFor(user.phone);
    const refused = await app.inject({
      method: "POST",
      url: "/api/auth/verify-otp",
      headers: { "x-device-id": "device-c" },
      payload: { phone: user.phone, otp_code: code },
    });
    expect(refused.statusCode).toBe(409);
    const limit = refused.json();
    expect(limit).toMatchObject({ errorType: "session_limit", maxSessions: 2 });
    expect(limit.sessions).toHaveLength(2);
    for (const s of limit.sessions) {
      expect(Object.keys(s).sort()).toEqual([
        "created_at",
        "device_info",
        "id",
        "ip_address",
        "last_activity",
      ]);
    }
    expect(typeof limit.eviction_token).toBe("string");

    const sessionA = limit.sessions[0].id as string;
    const choose = (extra: Record<string, string>, deviceId = "device-c") =>
      app.inject({
        method: "POST",
        url: "/api/sessions/force-logout",
        payload: { phone: user.phone, deviceId, sessionIdToLogout: sessionA, ...extra },
      });
    // Without the proof of a right code, or for another device, nobody chooses.
    expect((await choose({})).statusCode).toBe(403);
    expect((await choose({ eviction_token: limit.eviction_token }, "device-d")).statusCode).toBe(403);
    expect((await choose({ eviction_token: "x.y.z" })).statusCode).toBe(403);
    const chosen = await choose({ eviction_token: limit.eviction_token });
    expect(chosen.statusCode).toBe(200);
    // Choosing alone ends nothing: only finishing the sign-in on device C does.
    expect(await profileStatus(tokenA)).toBe(200);

    // The code survived the refusal, so the user just tries again.
    const ok = await app.inject({
      method: "POST",
      url: "/api/auth/verify-otp",
      headers: { "x-device-id": "device-c" },
      payload: { phone: user.phone, otp_code: code },
    });
    expect(ok.statusCode).toBe(200);
    const tokenC = ok.json().data.token;

    const kicked = await app.inject({ method: "GET", url: "/api/auth/profile", headers: auth(tokenA) });
    expect(kicked.statusCode).toBe(401);
    expect(kicked.json()).toMatchObject({ errorType: "unauthorized", reason: "terminated" });
    expect(await profileStatus(tokenB)).toBe(200);
    expect(await profileStatus(tokenC)).toBe(200);
  });

  it("tells a recognised device of the phone the real limit, and lets it choose", async () => {
    const user = await createUser(app);
    await app.db.update(users).set({ maxSessions: 1 }).where(eq(users.id, user.id));
    const laptop = await signInDevice(app, user.phone, "laptop");
    await app.inject({ method: "POST", url: "/api/auth/logout", headers: auth(laptop.token) });
    const tablet = await signIn(app, user.phone, "tablet");
    const check = (headers: Record<string, string>) =>
      app.inject({
        method: "POST",
        url: "/api/sessions/check-limit",
        headers,
        payload: { phone: user.phone, deviceId: "laptop" },
      });
    const known = (await check({ "x-device-credential": laptop.credential })).json();
    expect(known).toMatchObject({ canCreate: false, maxSessions: 1 });
    expect(known.sessions).toHaveLength(1);
    expect((await check({})).json()).toMatchObject({ canCreate: true, sessions: [] });
    // A credential is bound to its phone: it says nothing about another one.
    const other = await createUser(app);
    const elsewhere = await app.inject({
      method: "POST",
      url: "/api/sessions/check-limit",
      headers: { "x-device-credential": laptop.credential },
      payload: { phone: other.phone, deviceId: "laptop" },
    });
    expect(elsewhere.json()).toMatchObject({ canCreate: true, sessions: [] });

    const chosen = await app.inject({
      method: "POST",
      url: "/api/sessions/force-logout",
      headers: { "x-device-credential": laptop.credential },
      payload: { phone: user.phone, deviceId: "laptop", sessionIdToLogout: known.sessions[0].id },
    });
    expect(chosen.statusCode).toBe(200);
    await signInDevice(app, user.phone, "laptop", { credential: laptop.credential });
    expect(await profileStatus(tablet)).toBe(401);
  });

  it("signing in again on the same device replaces its session rather than using a slot", async () => {
    const user = await createUser(app);
    const first = await signIn(app, user.phone, "phone-1");
    await signIn(app, user.phone, "phone-2");
    const again = await signIn(app, user.phone, "phone-1");
    expect(await profileStatus(first)).toBe(401);
    expect(await profileStatus(again)).toBe(200);
  });

  it("answers an unknown phone as free to sign in, so the code request gives the real answer", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/sessions/check-limit",
      payload: { phone: "+61400000999", deviceId: "x" },
    });
    expect(res.json()).toEqual({ success: true, canCreate: true, sessions: [], maxSessions: 2 });
  });

  it("refuses to choose a session that is not the user's", async () => {
    const owner = await createUser(app);
    const other = await createUser(app);
    await signIn(app, owner.phone, "owner-device");
    const otherToken = await signIn(app, other.phone, "other-device");
    const mine = await app.inject({ method: "GET", url: "/api/sessions/active", headers: auth(otherToken) });
    const otherSession = mine.json().data[0].id;
    const res = await app.inject({
      method: "POST",
      url: "/api/sessions/force-logout",
      payload: { phone: owner.phone, deviceId: "attacker", sessionIdToLogout: otherSession },
    });
    expect(res.statusCode).toBe(403);
    // Even the owner's recognised device cannot pick a session of someone else's.
    const ownerDevice = await signInDevice(app, owner.phone, "owner-laptop");
    const notTheirs = await app.inject({
      method: "POST",
      url: "/api/sessions/force-logout",
      headers: { "x-device-credential": ownerDevice.credential },
      payload: { phone: owner.phone, deviceId: "owner-laptop", sessionIdToLogout: otherSession },
    });
    expect(notTheirs.statusCode).toBe(404);
  });

  it("rejects malformed check-limit and force-logout bodies with 400", async () => {
    const bad = [
      ["/api/sessions/check-limit", { phone: "+61412345678" }],
      ["/api/sessions/check-limit", { phone: "x", deviceId: "d" }],
      [
        "/api/sessions/force-logout",
        { phone: "+61412345678", deviceId: "d", sessionIdToLogout: "not-a-uuid" },
      ],
    ] as const;
    for (const [url, payload] of bad) {
      const res = await app.inject({ method: "POST", url, payload });
      expect(res.statusCode, url).toBe(400);
    }
  });
});

describe("a user's own sessions", () => {
  it("lists active sessions with the current one marked, and ends another one", async () => {
    const user = await createUser(app);
    const laptop = await signIn(app, user.phone, "laptop");
    const phone = await signIn(app, user.phone, "phone");
    const list = await app.inject({ method: "GET", url: "/api/sessions/active", headers: auth(laptop) });
    expect(list.statusCode).toBe(200);
    const sessions = list.json().data as { id: string; is_current: boolean }[];
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.is_current)).toHaveLength(1);

    const other = sessions.find((s) => !s.is_current)!;
    const del = await app.inject({
      method: "DELETE",
      url: `/api/sessions/${other.id}`,
      headers: auth(laptop),
    });
    expect(del.statusCode).toBe(200);
    expect(await profileStatus(phone)).toBe(401);
    expect(await profileStatus(laptop)).toBe(200);

    const again = await app.inject({
      method: "DELETE",
      url: `/api/sessions/${other.id}`,
      headers: auth(laptop),
    });
    expect(again.statusCode).toBe(404);
  });

  it("needs a token", async () => {
    expect((await app.inject({ method: "GET", url: "/api/sessions/active" })).statusCode).toBe(401);
  });
});
