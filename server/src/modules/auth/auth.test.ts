import { isDuplicatePhoneReply, MESSAGES } from "@turnout/domain";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import {
  createUser,
  readOutbox,
  signIn,
  smsCount,
  uniquePhone,
  waitForCode,
} from "../../../test/factories.js";
import { sendWithProofOfWork } from "../../../test/proof-of-work.js";
import {
  agencies,
  appSettings,
  bruteForceLocks,
  otpAttempts,
  securityConfig,
  securityEvents,
  userAgencies,
  users,
  verificationCodes,
} from "../../db/schema.js";

let app: TestApp;

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, payload: payload as object, headers });

async function setSecurity(key: string, value: number) {
  await app.db
    .update(securityConfig)
    .set({ value: String(value) })
    .where(eq(securityConfig.key, key));
}

const registration = (phone: string) => ({
  first_name: "Alex",
  last_name: "Nguyen",
  phone,
  user_agency: "CFA",
  postcode: "3550",
  town_name: "Bendigo",
  state_name: "VIC",
});

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => app.cleanup());

beforeEach(async () => {
  // Most tests share the one test address; the limit tests lower these again.
  await setSecurity("otp_requests_per_ip", 1000);
  await setSecurity("otp_failures_per_ip", 1000);
  await setSecurity("registrations_per_ip", 1000);
  await setSecurity("otp_requests_per_phone", 5);
  await setSecurity("otp_requests_per_phone_all", 20);
  await setSecurity("otp_max_failed_attempts", 5);
  await setSecurity("otp_failures_per_ip_phone", 5);
  await setSecurity("lockout_duration_seconds", 900);
  await setSecurity("otp_daily_failures_per_phone", 100);
  await setSecurity("otp_guarded_requests_per_phone", 1);
});

/**
 * Sign-in calls made from one client address, solving a proof of work when one is asked for (as the
 * app does, and as a determined attacker would).
 */
const from = (ip: string) => ({
  request: async (phone: string) =>
    (
      await sendWithProofOfWork((headers) =>
        app.inject({
          method: "POST",
          url: "/api/auth/request-otp",
          headers,
          payload: { phone },
          remoteAddress: ip,
        }),
      )
    ).res,
  verify: async (phone: string, otp_code: string) =>
    (
      await sendWithProofOfWork((headers) =>
        app.inject({
          method: "POST",
          url: "/api/auth/verify-otp",
          payload: { phone, otp_code },
          headers: { ...headers, "x-device-id": `device-${ip}` },
          remoteAddress: ip,
        }),
      )
    ).res,
});

const wrongFor = (code: string) => (code === "123456" ? "654321" : "123456");

/** Requests a code from `ip` and returns it once it has reached the phone. */
async function requestCode(ip: string, phone: string): Promise<string> {
  const before = smsCount(app, phone);
  const res = await from(ip).request(phone);
  expect(res.statusCode).toBe(200);
  return waitForCode(app, phone, before);
}

describe("registration and activation", () => {
  it("registers with a normalised phone, assigns the agency and texts an activation code", async () => {
    const res = await post("/api/auth/register", registration("0412 000 001"));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ success: true, needsVerification: true });

    const [user] = await app.db.select().from(users).where(eq(users.phone, "+61412000001"));
    expect(user).toMatchObject({ firstName: "Alex", isVerified: false, isActive: false, postcode: "3550" });
    const assigned = await app.db
      .select({ code: agencies.code })
      .from(userAgencies)
      .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
      .where(eq(userAgencies.userId, user!.id));
    expect(assigned).toEqual([{ code: "CFA" }]);

    const code = await waitForCode(app, "+61412000001");
    expect(code).toMatch(/^\d{6}$/);
    expect(readOutbox(app).at(-1)?.body).toContain("expires in 10 minutes");
    const [stored] = await app.db
      .select()
      .from(verificationCodes)
      .where(eq(verificationCodes.userId, user!.id));
    expect(stored?.codeHash).not.toContain(code);
  });

  it("answers a second registration of an unverified phone with needsVerification and a new code", async () => {
    const phone = "+61412000002";
    await post("/api/auth/register", registration(phone));
    await waitForCode(app, phone);
    const before = smsCount(app, phone);
    const res = await post("/api/auth/register", registration(phone));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      success: false,
      errorType: "account_not_activated",
      needsVerification: true,
    });
    await waitForCode(app, phone, before);
    expect(smsCount(app, phone)).toBe(before + 1);
  });

  it("activates with the right code only, then refuses a repeat registration as 'already exists'", async () => {
    const phone = "+61412000003";
    await post("/api/auth/register", registration(phone));
    const code = await waitForCode(app, phone);
    const wrong = code === "000000" ? "111111" : "000000";

    const bad = await post("/api/auth/activate", { phone, activation_code: wrong });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, errorType: "invalid_code" });

    const before = smsCount(app, phone);
    const ok = await post("/api/auth/activate", { phone, activation_code: code });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ success: true, data: { status: "active" } });
    const [user] = await app.db.select().from(users).where(eq(users.phone, phone));
    expect(user).toMatchObject({ isVerified: true, isActive: true });
    // The 'account ready' SMS.
    await expect.poll(() => smsCount(app, phone)).toBe(before + 1);
    expect(readOutbox(app).at(-1)?.body).toMatch(/account is ready/);

    const again = await post("/api/auth/register", registration(phone));
    expect(again.statusCode).toBe(409);
    expect(isDuplicatePhoneReply(again.json().message)).toBe(true);

    const reuse = await post("/api/auth/activate", { phone, activation_code: code });
    expect(reuse.statusCode).toBe(409);
  });

  it("refuses an expired activation code with code_expired", async () => {
    const phone = "+61412000004";
    await post("/api/auth/register", registration(phone));
    const code = await waitForCode(app, phone);
    const [user] = await app.db.select().from(users).where(eq(users.phone, phone));
    await app.db
      .update(verificationCodes)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(verificationCodes.userId, user!.id));
    const res = await post("/api/auth/activate", { phone, activation_code: code });
    expect(res.statusCode).toBe(400);
    expect(res.json().errorType).toBe("code_expired");
  });

  it("leaves a verified account waiting for review when auto-activation is off", async () => {
    await app.db
      .update(appSettings)
      .set({ value: { enabled: false } })
      .where(eq(appSettings.key, "auto_activation"));
    try {
      const phone = "+61412000005";
      await post("/api/auth/register", registration(phone));
      const code = await waitForCode(app, phone);
      const res = await post("/api/auth/activate", { phone, activation_code: code });
      expect(res.json()).toMatchObject({ success: true, data: { status: "pending_review" } });
      const otp = await post("/api/auth/request-otp", { phone });
      expect(otp.statusCode).toBe(403);
      expect(otp.json().errorType).toBe("account_not_activated");
    } finally {
      await app.db
        .update(appSettings)
        .set({ value: { enabled: true } })
        .where(eq(appSettings.key, "auto_activation"));
    }
  });

  it("rejects bad registrations with 400 naming the field, and stores nothing", async () => {
    const count = async () => (await app.db.select().from(users)).length;
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...registration("+61412000006"), first_name: "  " }, "first_name"],
      [{ ...registration("+61412000006"), phone: "12" }, "phone"],
      [{ ...registration("+61412000006"), user_agency: "NSWRFS" }, "user_agency"],
      [{ ...registration("+61412000006"), postcode: "30000" }, "postcode"],
      [{ ...registration("+61412000006"), state_name: "XX" }, "state_name"],
      [{ ...registration("+61412000006"), last_name: 42 }, "last_name"],
    ];
    for (const [body, field] of cases) {
      const res = await post("/api/auth/register", body);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().errorType).toBe("validation_error");
      expect(res.json().fields.map((f: { field: string }) => f.field)).toContain(`body.${field}`);
    }
    const { town_name: _omitted, ...missingTown } = registration("+61412000006");
    expect((await post("/api/auth/register", missingTown)).statusCode).toBe(400);
    expect(await count()).toBe(before);
  });
});

describe("one-time codes", () => {
  it("answers an unknown phone with 404 user_not_found and the spec's text", async () => {
    const res = await post("/api/auth/request-otp", { phone: "0499 999 999" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      errorType: "user_not_found",
      message: MESSAGES.USER_NOT_FOUND,
    });
  });

  it("sends an unverified account to activation with a fresh activation code", async () => {
    const phone = "+61412000010";
    await post("/api/auth/register", registration(phone));
    await waitForCode(app, phone);
    const before = smsCount(app, phone);
    const res = await post("/api/auth/request-otp", { phone });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: false,
      needsVerification: true,
      errorType: "account_not_activated",
    });
    await waitForCode(app, phone, before);
    expect(readOutbox(app).at(-1)?.body).toContain("activation code");
  });

  it("signs in with the code: token, user and agency; the profile answers; the code cannot be reused", async () => {
    const user = await createUser(app, { agencyCodes: ["SES"], firstName: "Robin" });
    const req = await post("/api/auth/request-otp", { phone: user.phone });
    expect(req.json()).toMatchObject({ success: true });
    const code = await waitForCode(app, user.phone);

    const res = await post(
      "/api/auth/verify-otp",
      { phone: user.phone, otp_code: code },
      { "x-device-id": "dev-1" },
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data.token.split(".")).toHaveLength(3);
    expect(body.data.user).toEqual({
      id: user.id,
      first_name: "Robin",
      last_name: "Tester",
      phone: user.phone,
      is_admin: false,
    });
    expect(body.data.agency).toMatchObject({ code: "SES", name: "State Emergency Service" });

    const profile = await app.inject({
      method: "GET",
      url: "/api/auth/profile",
      headers: { authorization: `Bearer ${body.data.token}` },
    });
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toMatchObject({ user: { id: user.id }, agency: { code: "SES" } });

    const reuse = await post(
      "/api/auth/verify-otp",
      { phone: user.phone, otp_code: code },
      { "x-device-id": "dev-2" },
    );
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().errorType).toBe("invalid_code");
  });

  it("accepts /auth/login as the same sign-in", async () => {
    const user = await createUser(app);
    await post("/api/auth/request-otp", { phone: user.phone });
    const code = await waitForCode(app, user.phone);
    const res = await post(
      "/api/auth/login",
      { phone: user.phone, otp_code: code },
      { "x-device-id": "dev-1" },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data.user.id).toBe(user.id);
  });

  it("only the newest code works", async () => {
    const user = await createUser(app);
    await post("/api/auth/request-otp", { phone: user.phone });
    const first = await waitForCode(app, user.phone);
    await post("/api/auth/request-otp", { phone: user.phone });
    const second = await waitForCode(app, user.phone, 1);
    if (first !== second) {
      const old = await post(
        "/api/auth/verify-otp",
        { phone: user.phone, otp_code: first },
        { "x-device-id": "d" },
      );
      expect(old.json().errorType).toBe("invalid_code");
    }
    const ok = await post(
      "/api/auth/verify-otp",
      { phone: user.phone, otp_code: second },
      { "x-device-id": "d" },
    );
    expect(ok.statusCode).toBe(200);
  });

  it("refuses an expired code with code_expired", async () => {
    const user = await createUser(app);
    await post("/api/auth/request-otp", { phone: user.phone });
    const code = await waitForCode(app, user.phone);
    await app.db
      .update(verificationCodes)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(verificationCodes.userId, user.id));
    const res = await post(
      "/api/auth/verify-otp",
      { phone: user.phone, otp_code: code },
      { "x-device-id": "d" },
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errorType).toBe("code_expired");
  });

  it("voids a code after the configured number of wrong guesses; the owner's new code then works", async () => {
    await setSecurity("otp_max_failed_attempts", 3);
    const user = await createUser(app);
    const attacker = from("203.0.113.10");
    const code = await requestCode("198.51.100.10", user.phone);

    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await attacker.verify(user.phone, wrongFor(code)));
    expect(replies.map((r) => r.statusCode)).toEqual([400, 400, 400]);
    expect(replies[2]?.json()).toMatchObject({ errorType: "invalid_code", message: /cancelled/ });

    const owner = from("198.51.100.10");
    const voided = await owner.verify(user.phone, code);
    expect(voided.statusCode).toBe(400);
    expect(voided.json().errorType).toBe("invalid_code");
    const fresh = await requestCode("198.51.100.10", user.phone);
    expect((await owner.verify(user.phone, fresh)).statusCode).toBe(200);
  });

  it("locks the guessing address out, not the owner on another address, with retryAfter and Retry-After", async () => {
    await setSecurity("otp_failures_per_ip_phone", 3);
    await setSecurity("lockout_duration_seconds", 600);
    const user = await createUser(app);
    const attacker = from("203.0.113.20");
    const code = await requestCode("203.0.113.20", user.phone);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await attacker.verify(user.phone, wrongFor(code))).statusCode);
    expect(statuses).toEqual([400, 400, 429]);

    const locked = await attacker.verify(user.phone, code);
    expect(locked.statusCode).toBe(429);
    const body = locked.json();
    expect(body).toMatchObject({ success: false, errorType: "rate_limited" });
    expect(body.retryAfter).toBeGreaterThan(590);
    expect(body.retryAfter).toBeLessThanOrEqual(600);
    expect(Number(locked.headers["retry-after"])).toBe(body.retryAfter);
    expect((await attacker.request(user.phone)).statusCode).toBe(429);

    const owner = from("198.51.100.20");
    const fresh = await requestCode("198.51.100.20", user.phone);
    const signedIn = await owner.verify(user.phone, fresh);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().data.user.id).toBe(user.id);

    const events = await app.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.userId, user.id), eq(securityEvents.eventType, "otp_lockout")));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ipAddress: "203.0.113.20", details: { scope: "ip_phone" } });
    expect(events[0]?.identifier).not.toContain(user.phone.slice(4, 9));
    const failures = await app.db
      .select()
      .from(otpAttempts)
      .where(and(eq(otpAttempts.userId, user.id), eq(otpAttempts.success, false)));
    expect(failures).toHaveLength(3);
  });

  it("locks a returning guesser out twice as long each time", async () => {
    await setSecurity("otp_failures_per_ip_phone", 2);
    await setSecurity("lockout_duration_seconds", 600);
    const user = await createUser(app);
    const attacker = from("203.0.113.30");
    const code = await requestCode("198.51.100.30", user.phone);
    await attacker.verify(user.phone, wrongFor(code));
    expect((await attacker.verify(user.phone, wrongFor(code))).json().retryAfter).toBeLessThanOrEqual(600);
    // The first lockout has run out.
    await app.db
      .update(bruteForceLocks)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(bruteForceLocks.kind, "ip_phone"));
    expect((await attacker.verify(user.phone, wrongFor(code))).statusCode).toBe(400);
    const again = await attacker.verify(user.phone, wrongFor(code));
    expect(again.statusCode).toBe(429);
    expect(again.json().retryAfter).toBeGreaterThan(1190);
    expect(again.json().retryAfter).toBeLessThanOrEqual(1200);
  });

  it("limits code requests per phone from one address, while the owner on another still gets a code", async () => {
    await setSecurity("otp_requests_per_phone", 2);
    await setSecurity("otp_requests_per_phone_all", 3);
    const user = await createUser(app);
    const attacker = from("203.0.113.40");
    expect((await attacker.request(user.phone)).statusCode).toBe(200);
    expect((await attacker.request(user.phone)).statusCode).toBe(200);
    const third = await attacker.request(user.phone);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ errorType: "rate_limited" });
    expect(third.json().retryAfter).toBeGreaterThan(0);
    expect(third.headers["retry-after"]).toBeDefined();
    await expect.poll(() => smsCount(app, user.phone)).toBe(2);

    const fresh = await requestCode("198.51.100.40", user.phone);
    expect((await from("198.51.100.40").verify(user.phone, fresh)).statusCode).toBe(200);
    // The phone's ceiling over every address is now used up.
    expect((await from("198.51.100.41").request(user.phone)).statusCode).toBe(429);
  });

  it("guards a phone past its daily ceiling of wrong codes from all addresses and tells admins", async () => {
    await setSecurity("otp_daily_failures_per_phone", 4);
    await setSecurity("otp_guarded_requests_per_phone", 2);
    const user = await createUser(app);
    const code = await requestCode("198.51.100.50", user.phone);
    const statuses = [];
    for (const ip of ["203.0.113.51", "203.0.113.52", "203.0.113.53", "203.0.113.54"]) {
      statuses.push((await from(ip).verify(user.phone, wrongFor(code))).statusCode);
    }
    expect(statuses).toEqual([400, 400, 400, 400]);

    const events = await app.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.userId, user.id), eq(securityEvents.eventType, "otp_daily_limit")));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ severity: "critical", details: { failures: 4 } });
    expect(events[0]?.identifier).not.toContain(user.phone.slice(4, 9));

    // The open code is void, but the owner can still ask for a fresh one and sign in.
    const owner = from("198.51.100.50");
    expect((await owner.verify(user.phone, code)).statusCode).toBe(400);
    const fresh = await requestCode("198.51.100.50", user.phone);
    expect((await owner.verify(user.phone, fresh)).statusCode).toBe(200);
    // While guarded, one wrong guess voids a code, and requests slow down for the phone as a whole.
    const next = await requestCode("198.51.100.55", user.phone);
    const guess = await from("203.0.113.56").verify(user.phone, wrongFor(next));
    expect(guess.json()).toMatchObject({ errorType: "invalid_code", message: /cancelled/ });
    expect((await owner.verify(user.phone, next)).statusCode).toBe(400);
    expect((await from("198.51.100.57").request(user.phone)).statusCode).toBe(429);
  });

  it("limits code requests per address across phones", async () => {
    await setSecurity("otp_requests_per_ip", 2);
    const ip = "198.51.100.7";
    const ask = async () =>
      (
        await app.inject({
          method: "POST",
          url: "/api/auth/request-otp",
          payload: { phone: uniquePhone() },
          remoteAddress: ip,
        })
      ).statusCode;
    expect([await ask(), await ask(), await ask()]).toEqual([404, 404, 429]);
  });

  it("rejects malformed sign-in input with 400 and counts no failure", async () => {
    const user = await createUser(app);
    const cases = [
      { phone: user.phone, otp_code: "1234567" },
      { phone: user.phone, otp_code: "12345" },
      { phone: user.phone, otp_code: 123456 },
      { phone: "", otp_code: "123456" },
      { otp_code: "123456" },
    ];
    for (const body of cases) {
      const res = await post("/api/auth/verify-otp", body, { "x-device-id": "d" });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errorType).toBe("validation_error");
    }
    const noDevice = await post("/api/auth/verify-otp", { phone: user.phone, otp_code: "123456" });
    expect(noDevice.statusCode).toBe(400);
    expect(noDevice.json().message).toMatch(/X-Device-ID/);
    const attempts = await app.db.select().from(otpAttempts).where(eq(otpAttempts.userId, user.id));
    expect(attempts).toHaveLength(0);
  });
});

describe("signed-in requests", () => {
  it("refuses a missing, forged or signed-out token with 401 and a reason", async () => {
    const user = await createUser(app);
    const token = await signIn(app, user.phone);
    const profile = (t?: string) =>
      app.inject({
        method: "GET",
        url: "/api/auth/profile",
        headers: t ? { authorization: `Bearer ${t}` } : {},
      });

    expect((await profile()).statusCode).toBe(401);
    const [h, p] = token.split(".");
    const forged = await profile(`${h}.${p}.c2lnbmF0dXJl`);
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ errorType: "unauthorized", reason: "invalid" });

    expect((await profile(token)).statusCode).toBe(200);
    const out = await app.inject({
      method: "POST",
      url: "/api/auth/logout",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.statusCode).toBe(200);
    const after = await profile(token);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ reason: "terminated", message: MESSAGES.SESSION_INVALID });
  });

  it("signs out with 200 even without a token", async () => {
    const res = await app.inject({ method: "POST", url: "/api/auth/logout" });
    expect(res.statusCode).toBe(200);
  });

  it("lists the sign-up agencies without the UNMAPPED placeholder", async () => {
    const res = await app.inject({ method: "GET", url: "/api/auth/agencies" });
    expect(res.json().data.map((a: { code: string }) => a.code)).toEqual(["FRV", "CFA", "SES", "Other"]);
  });
});
