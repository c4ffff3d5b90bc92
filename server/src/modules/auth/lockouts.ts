// Failures, request counts and lockouts around the codes (per phone, per address, per device credential), and the proof of work asked for while under attack.
import { SERVICE_SMS_BUDGETS, underAttack } from "@turnout/domain";
import { and, eq, isNull } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { verificationCodes } from "../../db/schema.js";
import { AppError, rateLimited } from "../../errors.js";
import type { TrustedDevice } from "../../shared/device-credentials.js";
import { recordOtpAttempt, recordSecurityEvent } from "../../shared/security/events.js";
import {
  addressLockKey,
  addressPhoneLockKey,
  consumeRateLimit,
  credentialLockKey,
  FAILURE_MEMORY_SECONDS,
  failureState,
  guardedRequestsKey,
  lockoutRemaining,
  phoneLockKey,
  phoneRequestsKey,
  rateLimitCount,
  recordFailure,
  tooManyAttempts,
} from "../../shared/security/limits.js";
import type { SecuritySettings } from "../../shared/security/settings.js";
import { smsBudgetsReached, strangerSmsThisHour } from "../../shared/security/sms-budget.js";
import { requireProofOfWork } from "./proof-of-work.js";
import { type CodeCheck, codeError, isGuarded, type UserRow } from "./verification-codes.js";

/** The client address that failures and requests are counted against. */
export const addressOf = (meta: RequestMeta) => meta.ip ?? "unknown";

/** The wrong codes for any phone in the current window (a signal that the service is under attack). */
const SERVICE_FAILURES_KEY = "otp:failures:all";

/**
 * Requires a solved proof of work (428 with a challenge otherwise) while the phone or the whole
 * service is under attack: strangers' requests or wrong codes for the phone, or for every phone,
 * past the thresholds in the security settings, or a service SMS budget reached.
 */
export async function proofOfWorkUnderAttack(
  ctx: ServiceContext,
  phone: string,
  meta: RequestMeta,
  settings: SecuritySettings,
): Promise<void> {
  const count = async (key: string) => Number(await ctx.cache.get(key)) || 0;
  const phoneState = await failureState(ctx.db, phoneLockKey(phone));
  const attack = underAttack(
    {
      phoneRequests: await rateLimitCount(ctx.cache, phoneRequestsKey(phone)),
      phoneFailures: phoneState.failures,
      phoneGuarded: phoneState.locked,
      serviceUnauthSms: await strangerSmsThisHour(ctx.cache),
      serviceFailures: await count(SERVICE_FAILURES_KEY),
      serviceBudgetReached: (await smsBudgetsReached(ctx.cache)).some((n) => SERVICE_SMS_BUDGETS.has(n)),
    },
    {
      phoneRequests: settings.pow_phone_requests,
      phoneFailures: settings.pow_phone_failures,
      serviceUnauthSms: settings.pow_service_unauth_sms_per_hour,
      serviceFailures: settings.pow_service_failures_per_window,
    },
  );
  if (attack.phone || attack.service) {
    await requireProofOfWork(ctx, meta.proofOfWork ?? null, settings, addressOf(meta));
  }
}

/** Throws 429 while this address is locked out, of every phone or of this one. */
export async function assertAddressNotLocked(db: Database, ip: string, phone: string): Promise<void> {
  const remaining = await lockoutRemaining(db, addressLockKey(ip), addressPhoneLockKey(ip, phone));
  if (remaining > 0) throw rateLimited(tooManyAttempts(remaining), remaining);
}

/**
 * Counts a code request per address, per phone from this address, and per phone from every address
 * together: a ceiling one network cannot use up, so the owner can still ask from another. A guarded
 * phone gets far fewer. Throws 429 (and records otp_request_limited) when a count is over.
 */
export async function consumeCodeRequest(
  ctx: ServiceContext,
  phone: string,
  meta: RequestMeta,
  settings: SecuritySettings,
): Promise<void> {
  const ip = addressOf(meta);
  const window = settings.otp_request_window_seconds;
  try {
    await consumeRateLimit(ctx.cache, `otp:ip:${ip}`, settings.otp_requests_per_ip, window);
    await consumeRateLimit(ctx.cache, `otp:ip-phone:${ip}|${phone}`, settings.otp_requests_per_phone, window);
    await consumeRateLimit(ctx.cache, phoneRequestsKey(phone), settings.otp_requests_per_phone_all, window);
    if (await isGuarded(ctx.db, phone)) {
      await consumeRateLimit(
        ctx.cache,
        guardedRequestsKey(phone),
        settings.otp_guarded_requests_per_phone,
        window,
      );
    }
  } catch (err) {
    // Only a limit reached is an event; a cache store that did not answer (503) says nothing of the caller.
    if (err instanceof AppError && err.status === 429)
      await recordSecurityEvent(ctx.db, {
        type: "otp_request_limited",
        severity: "warn",
        phone,
        ip: meta.ip,
      });
    throw err;
  }
}

/**
 * Records a wrong or expired code and throws. A wrong code counts against this address (for this
 * phone and overall; over either limit the address is locked out and gets 429) and against the
 * phone's daily ceiling (reaching it voids the phone's open codes, guards the phone for a day and
 * records a critical event for admins); otherwise 400.
 */
export async function failAttempt(
  ctx: ServiceContext,
  a: {
    kind: "verify" | "activate";
    phone: string;
    user: UserRow | undefined;
    meta: RequestMeta;
    settings: SecuritySettings;
    reason: CodeCheck;
  },
): Promise<never> {
  const userId = a.user?.id ?? null;
  const ip = addressOf(a.meta);
  await recordOtpAttempt(ctx.db, {
    kind: a.kind,
    phone: a.phone,
    userId,
    ip: a.meta.ip,
    success: false,
    reason: a.reason,
  });
  await recordSecurityEvent(ctx.db, {
    type: a.kind === "verify" ? "otp_failed" : "activation_failed",
    severity: "warn",
    userId,
    phone: a.phone,
    ip: a.meta.ip,
    details: { reason: a.reason },
  });
  if (a.reason === "expired") throw codeError(a.reason);
  await ctx.cache.increment(SERVICE_FAILURES_KEY, a.settings.otp_request_window_seconds);

  const daily = await recordFailure(
    ctx.db,
    phoneLockKey(a.phone),
    "phone",
    a.settings.otp_daily_failures_per_phone,
    FAILURE_MEMORY_SECONDS,
  );
  if (daily.lockedSeconds > 0) {
    // Recognised devices' own codes stay: strangers' guesses cannot cancel them.
    if (userId !== null) await voidOpenCodes(ctx.db, userId, { anonymousOnly: true });
    await recordSecurityEvent(ctx.db, {
      type: "otp_daily_limit",
      severity: "critical",
      userId,
      phone: a.phone,
      ip: a.meta.ip,
      details: { failures: daily.failures, guardedSeconds: daily.lockedSeconds },
    });
  }
  const pair = await recordFailure(
    ctx.db,
    addressPhoneLockKey(ip, a.phone),
    "ip_phone",
    a.settings.otp_failures_per_ip_phone,
    a.settings.lockout_duration_seconds,
  );
  const address = await recordFailure(
    ctx.db,
    addressLockKey(ip),
    "ip",
    a.settings.otp_failures_per_ip,
    a.settings.lockout_duration_seconds,
  );
  if (pair.lockedSeconds > 0 || address.lockedSeconds > 0) {
    const seconds = await lockoutRemaining(ctx.db, addressLockKey(ip), addressPhoneLockKey(ip, a.phone));
    await recordSecurityEvent(ctx.db, {
      type: "otp_lockout",
      severity: "warn",
      userId,
      phone: a.phone,
      ip: a.meta.ip,
      details: { scope: address.lockedSeconds > 0 ? "ip" : "ip_phone", seconds },
    });
    throw rateLimited(tooManyAttempts(seconds), seconds);
  }
  throw codeError(a.reason);
}

/**
 * Records a wrong or expired code from a recognised device and throws 400. It counts against that
 * device alone (never the phone's daily ceiling or an address): past `device_failures_per_day` in a
 * day the device is served as a stranger until it signs in again, so a stolen credential buys no more
 * guesses than anyone has.
 */
export async function failOwnAttempt(
  ctx: ServiceContext,
  a: {
    phone: string;
    user: UserRow | undefined;
    device: TrustedDevice;
    meta: RequestMeta;
    settings: SecuritySettings;
    reason: CodeCheck;
  },
): Promise<never> {
  const userId = a.user?.id ?? null;
  await recordOtpAttempt(ctx.db, {
    kind: "verify",
    phone: a.phone,
    userId,
    ip: a.meta.ip,
    success: false,
    reason: a.reason,
  });
  await recordSecurityEvent(ctx.db, {
    type: "otp_failed",
    severity: "warn",
    userId,
    phone: a.phone,
    ip: a.meta.ip,
    details: { reason: a.reason, device: "recognised" },
  });
  if (a.reason !== "expired") {
    await recordFailure(
      ctx.db,
      credentialLockKey(a.device.credentialId),
      "credential",
      a.settings.device_failures_per_day,
      FAILURE_MEMORY_SECONDS,
    );
  }
  throw codeError(a.reason);
}

/**
 * Voids every open code of a user (or only those asked for anonymously), so only a code requested
 * from now on works.
 */
export async function voidOpenCodes(
  db: Database,
  userId: number,
  options: { anonymousOnly?: boolean } = {},
): Promise<void> {
  await db
    .update(verificationCodes)
    .set({ consumedAt: new Date() })
    .where(
      and(
        eq(verificationCodes.userId, userId),
        isNull(verificationCodes.consumedAt),
        options.anonymousOnly ? isNull(verificationCodes.credentialId) : undefined,
      ),
    );
}
