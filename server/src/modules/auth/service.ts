// Signing in: one-time codes asked for and verified, a trusted device's own codes, recovery links. Codes: verification-codes.ts; lockouts and counts: lockouts.ts.

import { MESSAGES, normalizePhone } from "@turnout/domain";
import { eq } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { recoveryRedemptions, users } from "../../db/schema.js";
import { AppError } from "../../errors.js";
import {
  issueDeviceCredential,
  type TrustedDevice,
  verifyDeviceCredential,
} from "../../shared/device-credentials.js";
import { presentUser } from "../../shared/present-user.js";
import type { DeviceMeta } from "../../shared/request-meta.js";
import { recordOtpAttempt, recordSecurityEvent } from "../../shared/security/events.js";
import {
  addressPhoneLockKey,
  clearFailures,
  clearPhoneFailures,
  consumeRateLimit,
  credentialLockKey,
  lockoutRemaining,
} from "../../shared/security/limits.js";
import { getSecuritySettings, type SecuritySettings } from "../../shared/security/settings.js";
import { clearPhoneSmsBudget, reserveStrangerSms } from "../../shared/security/sms-budget.js";
import { endSession, openSession, presentSession, sessionLimitState } from "../../shared/sessions.js";
import { signEvictionToken, signSessionToken, verifyRecoveryToken } from "../../shared/tokens.js";
import {
  addressOf,
  assertAddressNotLocked,
  consumeCodeRequest,
  failAttempt,
  failOwnAttempt,
  proofOfWorkUnderAttack,
  voidOpenCodes,
} from "./lockouts.js";
import { primaryAgency } from "./profile.js";
import {
  checkCode,
  codeError,
  consumeLatestCode,
  findUserByPhone,
  guessAllowance,
  issueCode,
  type UserRow,
} from "./verification-codes.js";

/** What a deactivated user is told when they ask for a sign-in code. */
export const ACCOUNT_DEACTIVATED_MESSAGE =
  "Your account has been deactivated. Please contact your administrator.";

/**
 * Texts a one-time sign-in code. Throws 404 user_not_found for an unknown phone, 403 account_inactive
 * for an account an admin deactivated (account_not_activated for one still awaiting review), and 429 when this
 * address asks too often or is locked out of the phone, or the phone is asked for too often from
 * everywhere. An unverified account gets a fresh activation code instead and `needsVerification`.
 * A device that signed in before with this phone (its credential in `meta`) asks on its own allowance
 * and gets a code of its own; anyone else needs a proof of work while the phone or the service is
 * under attack (428), and fits the SMS budgets (429 sms_budget_exceeded).
 */
export async function requestLoginCode(ctx: ServiceContext, input: { phone: string }, meta: RequestMeta) {
  const phone = normalizePhone(input.phone);
  const settings = await getSecuritySettings(ctx.db);
  const device = await trustedDevice(ctx, meta, phone);
  if (device) return requestOwnCode(ctx, phone, device, meta, settings);
  await assertAddressNotLocked(ctx.db, addressOf(meta), phone);
  await proofOfWorkUnderAttack(ctx, phone, meta, settings);
  await consumeCodeRequest(ctx, phone, meta, settings);
  const user = await findUserByPhone(ctx.db, phone);
  if (!user) {
    await recordOtpAttempt(ctx.db, {
      kind: "request",
      phone,
      ip: meta.ip,
      success: false,
      reason: "user_not_found",
    });
    throw new AppError(404, "user_not_found", MESSAGES.USER_NOT_FOUND);
  }
  if (!user.isVerified) {
    await reserveStrangerSms(ctx, phone, settings);
    await ctx.db.transaction((tx) => issueCode(ctx, tx, user, "activation", settings));
    ctx.nudgeSms();
    return {
      success: false as const,
      needsVerification: true as const,
      errorType: "account_not_activated" as const,
      message: "Your account has not been verified yet. We have sent a new activation code to your phone.",
    };
  }
  if (!user.isActive) {
    // An account that was active once has been switched off by an admin; one never activated waits for review.
    if (user.activatedAt) {
      await recordOtpAttempt(ctx.db, {
        kind: "request",
        phone,
        userId: user.id,
        ip: meta.ip,
        success: false,
        reason: "account_inactive",
      });
      throw new AppError(403, "account_inactive", ACCOUNT_DEACTIVATED_MESSAGE);
    }
    throw new AppError(
      403,
      "account_not_activated",
      "Your account is waiting for an administrator to activate it. You will receive an SMS when it is ready.",
    );
  }
  await reserveStrangerSms(ctx, phone, settings);
  await ctx.db.transaction(async (tx) => {
    await issueCode(ctx, tx, user, "login", settings);
    await recordOtpAttempt(tx, { kind: "request", phone, userId: user.id, ip: meta.ip, success: true });
    await recordSecurityEvent(tx, { type: "otp_requested", userId: user.id, phone, ip: meta.ip });
  });
  ctx.nudgeSms();
  return { success: true as const, message: "We have sent a 6-digit code to your phone." };
}

/**
 * A code for a device that signed in before: counted on the device's own allowance only (no address,
 * phone-wide or guarded ceiling, no SMS budget, no proof of work), and bound to the device, so no
 * other request can replace it and no guess from elsewhere can void it. Throws 429 when the device
 * itself asks too often, 403 when the account was deactivated.
 */
async function requestOwnCode(
  ctx: ServiceContext,
  phone: string,
  device: TrustedDevice,
  meta: RequestMeta,
  settings: SecuritySettings,
) {
  await consumeRateLimit(
    ctx.cache,
    `otp:device:${device.credentialId}`,
    settings.device_code_requests_per_window,
    settings.otp_request_window_seconds,
  );
  const user = await findUserByPhone(ctx.db, phone);
  if (!user || user.id !== device.userId) throw new AppError(404, "user_not_found", MESSAGES.USER_NOT_FOUND);
  if (!user.isActive) throw new AppError(403, "account_inactive", ACCOUNT_DEACTIVATED_MESSAGE);
  await ctx.db.transaction(async (tx) => {
    await issueCode(ctx, tx, user, "login", settings, device.credentialId);
    await recordOtpAttempt(tx, { kind: "request", phone, userId: user.id, ip: meta.ip, success: true });
    await recordSecurityEvent(tx, {
      type: "otp_requested",
      userId: user.id,
      phone,
      ip: meta.ip,
      details: { device: "recognised" },
    });
  });
  ctx.nudgeSms();
  return { success: true as const, message: "We have sent a 6-digit code to your phone." };
}

/**
 * The device a request's credential proves for `phone`, unless that device has made too many wrong
 * guesses today (it is then served as a stranger until its next sign-in).
 */
async function trustedDevice(ctx: ServiceContext, meta: RequestMeta, phone: string) {
  const device = await verifyDeviceCredential(ctx.db, ctx.config.jwtSecret, meta.credential, phone);
  if (!device) return null;
  return (await lockoutRemaining(ctx.db, credentialLockKey(device.credentialId))) > 0 ? null : device;
}

/**
 * Signs in with a one-time code: opens a device session and returns `{ token, user, agency }`.
 * Throws 400 invalid_code / code_expired (a code is voided after too many wrong guesses), 429 when
 * this address made too many wrong guesses (the address, not the phone, is locked out),
 * 403 account_inactive when an admin deactivated the account after the code was sent,
 * 409 session_limit (with the sessions to choose from) when the device may not open another session;
 * the code stays usable in that case, so the user can choose a session and try again.
 */
export async function verifyLoginCode(
  ctx: ServiceContext,
  input: { phone: string; code: string },
  meta: DeviceMeta,
) {
  const phone = normalizePhone(input.phone);
  const settings = await getSecuritySettings(ctx.db);
  const device = await trustedDevice(ctx, meta, phone);
  const channel = device?.credentialId ?? null;
  if (!device) {
    // A recognised device is never held up by what others did from its address.
    await assertAddressNotLocked(ctx.db, addressOf(meta), phone);
    await proofOfWorkUnderAttack(ctx, phone, meta, settings);
    await consumeRateLimit(
      ctx.cache,
      `verify:ip:${addressOf(meta)}`,
      settings.otp_requests_per_ip * 2,
      settings.otp_request_window_seconds,
    );
  }
  const user = await findUserByPhone(ctx.db, phone);
  // A code sent before an admin deactivated the account: say so rather than 'wrong code'.
  if (user && !user.isActive && user.activatedAt) {
    throw new AppError(403, "account_inactive", ACCOUNT_DEACTIVATED_MESSAGE);
  }
  const allowance = device ? settings.otp_max_failed_attempts : await guessAllowance(ctx.db, phone, settings);
  const checked = user?.isActive
    ? await checkCode(ctx, user, "login", input.code, allowance, channel)
    : "invalid";
  if (!user || checked !== "ok") {
    if (device) return failOwnAttempt(ctx, { phone, user, device, meta, settings, reason: checked });
    return failAttempt(ctx, { kind: "verify", phone, user, meta, settings, reason: checked });
  }

  const max = user.maxSessions ?? settings.max_device_sessions;
  const limit = await sessionLimitState(ctx.db, user.id, meta.deviceId, max);
  if (!limit.canCreate) {
    await recordSecurityEvent(ctx.db, { type: "session_limit_reached", userId: user.id, phone, ip: meta.ip });
    throw new AppError(
      409,
      "session_limit",
      `You are signed in on ${max} devices already. Choose one to sign out.`,
      {
        sessions: limit.sessions.map((s) => presentSession(s, { maskIp: true })),
        maxSessions: max,
        // The code was right: this device may now choose a session to sign out (force-logout).
        eviction_token: await signEvictionToken(ctx.config.jwtSecret, user.id, meta.deviceId),
      },
    );
  }

  const { session, endedSessionIds, credential } = await ctx.db.transaction(async (tx) => {
    if (!(await consumeLatestCode(tx, user.id, "login", channel))) throw codeError("invalid");
    const opened = await openDeviceSession(ctx, tx, user, meta, settings);
    await recordOtpAttempt(tx, { kind: "verify", phone, userId: user.id, ip: meta.ip, success: true });
    await recordSecurityEvent(tx, {
      type: "login_success",
      userId: user.id,
      phone,
      ip: meta.ip,
      details: { sessionId: opened.session.id, device: device ? "recognised" : "new" },
    });
    return opened;
  });
  ctx.live.sessionsEnded(endedSessionIds, "terminated");
  // Failures from this address no longer count (NIST SP 800-63B 5.2.2); the phone's daily count
  // stays, so a sign-in cannot hand a guesser elsewhere a fresh allowance.
  await clearFailures(ctx.db, addressPhoneLockKey(addressOf(meta), phone));
  if (device) await clearFailures(ctx.db, credentialLockKey(device.credentialId));
  return signedIn(ctx, user, session, credential);
}

/** What a device that has just signed in is given: the session token and its new device credential. */
async function signedIn(
  ctx: ServiceContext,
  user: UserRow,
  session: { id: string; expiresAt: Date },
  credential: string,
) {
  const token = await signSessionToken(ctx.config.jwtSecret, {
    userId: user.id,
    sessionId: session.id,
    expiresAt: session.expiresAt,
  });
  return {
    success: true as const,
    message: "Signed in.",
    data: {
      token,
      user: presentUser(user),
      agency: await primaryAgency(ctx.db, user.id),
      device_credential: credential,
    },
  };
}

/**
 * Opens the device's session, records the sign-in time and gives the device a new credential (its
 * previous one is replaced). Run inside the sign-in transaction.
 */
async function openDeviceSession(
  ctx: ServiceContext,
  tx: Database,
  user: UserRow,
  meta: DeviceMeta,
  settings: SecuritySettings,
) {
  const opened = await openSession(tx, {
    userId: user.id,
    deviceId: meta.deviceId,
    deviceInfo: meta.deviceInfo,
    userAgent: meta.userAgent,
    ip: meta.ip,
    ttlDays: settings.session_ttl_days,
  });
  await tx.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, user.id));
  const credential = await issueDeviceCredential(tx, ctx.config.jwtSecret, {
    userId: user.id,
    phone: user.phone,
    deviceId: meta.deviceId,
    deviceInfo: meta.deviceInfo,
    userAgent: meta.userAgent,
    days: settings.device_credential_days,
  });
  return { ...opened, credential };
}

/**
 * Signs in with a recovery link made by the operator's command (`npm run admin -- recover <phone>`),
 * for the day an admin is locked out: it lifts the phone's guard and every lockout and count for it,
 * then opens a session (ending the least recently used one when the limit is reached) and recognises
 * the device. Each link works once, within 30 minutes. Throws 400 invalid_code for a link that is
 * not valid, expired or used, 404 when the phone has no account, 403 when the account is inactive.
 */
export async function recoverSignIn(ctx: ServiceContext, token: string, meta: DeviceMeta) {
  const claims = await verifyRecoveryToken(ctx.config.jwtSecret, token);
  const invalid = new AppError(
    400,
    "invalid_code",
    "This recovery link is not valid, has expired or was used already. Ask your operator for a new one.",
  );
  if (!claims) throw invalid;
  const user = await findUserByPhone(ctx.db, claims.phone);
  if (!user) throw new AppError(404, "user_not_found", MESSAGES.USER_NOT_FOUND);
  if (!user.isActive) throw new AppError(403, "account_inactive", ACCOUNT_DEACTIVATED_MESSAGE);
  const settings = await getSecuritySettings(ctx.db);
  const { session, endedSessionIds, credential } = await ctx.db.transaction(async (tx) => {
    const redeemed = await tx
      .insert(recoveryRedemptions)
      .values({ tokenId: claims.tokenId, userId: user.id })
      .onConflictDoNothing()
      .returning({ tokenId: recoveryRedemptions.tokenId });
    if (redeemed.length === 0) throw invalid;
    const ended: string[] = [];
    const max = user.maxSessions ?? settings.max_device_sessions;
    const limit = await sessionLimitState(tx, user.id, meta.deviceId, max);
    if (!limit.canCreate) {
      const leastUsed = [...limit.sessions].sort((a, b) => +a.lastActivity - +b.lastActivity)[0];
      if (leastUsed && (await endSession(tx, leastUsed.id, "force_logout"))) ended.push(leastUsed.id);
    }
    const opened = await openDeviceSession(ctx, tx, user, meta, settings);
    await voidOpenCodes(tx, user.id);
    await recordSecurityEvent(tx, {
      type: "recovery_sign_in",
      severity: "warn",
      userId: user.id,
      phone: user.phone,
      ip: meta.ip,
      details: { sessionId: opened.session.id, endedSessionIds: ended },
    });
    return { ...opened, endedSessionIds: [...ended, ...opened.endedSessionIds] };
  });
  await clearPhoneFailures(ctx.db, user.phone);
  await clearPhoneSmsBudget(ctx.cache, user.phone);
  ctx.live.sessionsEnded(endedSessionIds, "terminated");
  return signedIn(ctx, user, session, credential);
}
