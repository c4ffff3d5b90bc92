import {
  ACTIVATION_CODE_EXPIRY_MINUTES,
  type DeviceInfo,
  MESSAGES,
  normalizePhone,
  type RegistrationInput,
  SERVICE_SMS_BUDGETS,
  UNMAPPED_AGENCY,
  underAttack,
} from "@turnout/domain";
import { and, asc, desc, eq, isNull, lt, ne, sql } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import {
  agencies,
  appSettings,
  recoveryRedemptions,
  userAgencies,
  users,
  verificationCodes,
} from "../../db/schema.js";
import { AppError, conflict, rateLimited } from "../../errors.js";
import { enqueueSms } from "../../sms/queue.js";
import { notifyAdminsOfPendingAccount } from "../auto-activation/service.js";
import { recordOtpAttempt, recordSecurityEvent } from "../security/events.js";
import {
  addressLockKey,
  addressPhoneLockKey,
  clearFailures,
  clearPhoneFailures,
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
} from "../security/limits.js";
import { getSecuritySettings, type SecuritySettings } from "../security/settings.js";
import {
  clearPhoneSmsBudget,
  reserveStrangerSms,
  smsBudgetsReached,
  strangerSmsThisHour,
} from "../security/sms-budget.js";
import { endSession, openSession, presentSession, sessionLimitState } from "../sessions/service.js";
import { unitsOfUser, writeUserUnits } from "../units/service.js";
import { codeMatches, generateCode, hashCode } from "./codes.js";
import { issueDeviceCredential, type TrustedDevice, verifyDeviceCredential } from "./device-credentials.js";
import { presentAgency, presentProfileUser, presentUser } from "./present.js";
import { requireProofOfWork } from "./proof-of-work.js";
import { signEvictionToken, signSessionToken, verifyRecoveryToken } from "./tokens.js";

type Purpose = "login" | "activation";
type UserRow = typeof users.$inferSelect;

/** What a deactivated user is told when they ask for a sign-in code. */
export const ACCOUNT_DEACTIVATED_MESSAGE =
  "Your account has been deactivated. Please contact your administrator.";

/** The client address that failures and requests are counted against. */
const addressOf = (meta: RequestMeta) => meta.ip ?? "unknown";

// ---------------------------------------------------------------------------
// Registration and activation
// ---------------------------------------------------------------------------

/**
 * Creates an unverified account assigned to its sign-up agency and texts it an activation code.
 * Throws 409 'already exists' for a verified phone, 409 account_not_activated (a fresh code sent)
 * for an unverified one, 429 when this address registers too often.
 */
export async function registerUser(ctx: ServiceContext, input: RegistrationInput, meta: RequestMeta) {
  const settings = await getSecuritySettings(ctx.db);
  await consumeRateLimit(
    ctx.cache,
    `register:ip:${meta.ip}`,
    settings.registrations_per_ip,
    settings.otp_request_window_seconds,
  );
  await proofOfWorkUnderAttack(ctx, input.phone, meta, settings);
  const existing = await findUserByPhone(ctx.db, input.phone);
  if (existing?.isVerified) throw conflict("A user with this phone number already exists.");
  if (existing) {
    await consumeCodeRequest(ctx, existing.phone, meta, settings);
    await reserveStrangerSms(ctx, existing.phone, settings);
    await ctx.db.transaction((tx) => issueCode(ctx, tx, existing, "activation", settings));
    ctx.nudgeSms();
    throw new AppError(
      409,
      "account_not_activated",
      "An account with this phone number exists but has not been verified yet. We have sent a new activation code.",
      { needsVerification: true },
    );
  }

  await reserveStrangerSms(ctx, input.phone, settings);
  await ctx.db.transaction(async (tx) => {
    const [agency] = await tx.select().from(agencies).where(eq(agencies.code, input.user_agency));
    const inserted = await tx
      .insert(users)
      .values({
        firstName: input.first_name,
        lastName: input.last_name,
        phone: input.phone,
        postcode: input.postcode,
        townName: input.town_name,
        stateName: input.state_name,
      })
      .onConflictDoNothing({ target: users.phone })
      .returning();
    const user = inserted[0];
    // Two registrations of one phone at the same instant: the loser gets the ordinary answer.
    if (!user) throw conflict("A user with this phone number already exists.");
    if (agency) await tx.insert(userAgencies).values({ userId: user.id, agencyId: agency.id });
    // The units chosen at sign-up (issue 26), of the agency chosen there only.
    if (agency && input.unit_ids?.length)
      await writeUserUnits(tx, user.id, input.unit_ids, { addAgencies: false });
    await issueCode(ctx, tx, user, "activation", settings);
    await recordSecurityEvent(tx, {
      type: "registration",
      userId: user.id,
      phone: user.phone,
      ip: meta.ip,
      details: { agency: input.user_agency },
    });
  });
  ctx.nudgeSms();
  return {
    success: true as const,
    message: `Account created. We have sent a 6-digit activation code to your phone; it expires in ${ACTIVATION_CODE_EXPIRY_MINUTES} minutes.`,
    needsVerification: true as const,
  };
}

/**
 * Checks an activation code. The account becomes verified, and active at once when auto-activation
 * is on (an SMS tells the user it is ready); otherwise it waits for an admin's review.
 * Throws 400 invalid_code / code_expired, 429 when this address is locked out of the phone.
 */
export async function activateAccount(
  ctx: ServiceContext,
  input: { phone: string; code: string },
  meta: RequestMeta,
) {
  const phone = normalizePhone(input.phone);
  const settings = await getSecuritySettings(ctx.db);
  await assertAddressNotLocked(ctx.db, addressOf(meta), phone);
  await proofOfWorkUnderAttack(ctx, phone, meta, settings);
  const user = await findUserByPhone(ctx.db, phone);
  if (user?.isVerified) throw conflict("This account is already verified. Please sign in.");
  const allowance = await guessAllowance(ctx.db, phone, settings);
  const checked = user ? await checkCode(ctx, user, "activation", input.code, allowance) : "invalid";
  if (!user || checked !== "ok") {
    return failAttempt(ctx, { kind: "activate", phone, user, meta, settings, reason: checked });
  }

  const autoActivate = await isAutoActivationEnabled(ctx.db);
  await ctx.db.transaction(async (tx) => {
    if (!(await consumeLatestCode(tx, user.id, "activation", null))) throw codeError("invalid");
    await tx
      .update(users)
      .set({
        isVerified: true,
        ...(autoActivate ? { isActive: true, activatedAt: new Date() } : {}),
        updatedAt: new Date(),
      })
      .where(eq(users.id, user.id));
    if (autoActivate) {
      await enqueueSms(tx, { to: user.phone, body: accountReadySms(ctx), kind: "account", userId: user.id });
    } else {
      await notifyAdminsOfPendingAccount(tx, user);
    }
    await recordOtpAttempt(tx, { kind: "activate", phone, userId: user.id, ip: meta.ip, success: true });
    await recordSecurityEvent(tx, { type: "activation_success", userId: user.id, phone, ip: meta.ip });
  });
  await clearFailures(ctx.db, addressPhoneLockKey(addressOf(meta), phone));
  ctx.nudgeSms();
  return {
    success: true as const,
    message: autoActivate
      ? "Account verified. Your account is active and you can sign in now."
      : "Account verified. An administrator will review it and you will receive an SMS when it is ready.",
    data: { status: autoActivate ? ("active" as const) : ("pending_review" as const) },
  };
}

/** Whether new accounts become active as soon as they are verified (the admin's auto-activation switch). */
export async function isAutoActivationEnabled(db: Database): Promise<boolean> {
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, "auto_activation"));
  const value = row?.value as { enabled?: unknown } | undefined;
  return value?.enabled !== false;
}

/** The SMS that tells a user their account is active and they can sign in. */
export function accountReadySms(ctx: Pick<ServiceContext, "config">): string {
  const where = ctx.config.publicUrl ? ` at ${ctx.config.publicUrl}` : "";
  return `Turnout: your account is ready. Sign in${where} with your phone number.`;
}

// ---------------------------------------------------------------------------
// One-time sign-in codes
// ---------------------------------------------------------------------------

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

/** The wrong codes for any phone in the current window (a signal that the service is under attack). */
const SERVICE_FAILURES_KEY = "otp:failures:all";

/**
 * Requires a solved proof of work (428 with a challenge otherwise) while the phone or the whole
 * service is under attack: strangers' requests or wrong codes for the phone, or for every phone,
 * past the thresholds in the security settings, or a service SMS budget reached.
 */
async function proofOfWorkUnderAttack(
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

export type DeviceMeta = RequestMeta & { deviceId: string; deviceInfo: Partial<DeviceInfo> };

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

// ---------------------------------------------------------------------------
// Profile and reference data
// ---------------------------------------------------------------------------

/** The signed-in user with their primary agency and every agency assigned to them. */
export async function getProfile(db: Database, userId: number) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new AppError(401, "unauthorized", MESSAGES.SESSION_INVALID, { reason: "invalid" });
  const [assigned, units] = await Promise.all([userAgencyRows(db, userId), unitsOfUser(db, userId)]);
  return {
    success: true as const,
    user: {
      ...presentProfileUser(user),
      units: units.map((u) => ({ id: u.id, name: u.name, agency_id: u.agency_id })),
    },
    agency: assigned[0] ? presentAgency(assigned[0]) : null,
    agencies: assigned.map(presentAgency),
  };
}

/** Agencies a person can choose at sign-up (every active agency but the UNMAPPED placeholder). */
export async function listSignupAgencies(db: Database) {
  const rows = await db
    .select()
    .from(agencies)
    .where(and(eq(agencies.isActive, true), ne(agencies.code, UNMAPPED_AGENCY.code)))
    .orderBy(asc(agencies.id));
  return { success: true as const, data: rows.map(presentAgency) };
}

async function userAgencyRows(db: Database, userId: number) {
  const rows = await db
    .select({ agency: agencies })
    .from(userAgencies)
    .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
    .where(eq(userAgencies.userId, userId))
    .orderBy(asc(userAgencies.createdAt), asc(agencies.id));
  return rows.map((r) => r.agency);
}

async function primaryAgency(db: Database, userId: number) {
  const [first] = await userAgencyRows(db, userId);
  return first ? presentAgency(first) : null;
}

// ---------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------

async function findUserByPhone(db: Database, phone: string): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.phone, phone));
  return user;
}

/** Replaces any open code of this purpose with a new one and queues the SMS that carries it. */
async function issueCode(
  ctx: ServiceContext,
  tx: Database,
  user: UserRow,
  purpose: Purpose,
  settings: SecuritySettings,
  /** The recognised device asking, whose code is its own; null: a code for anyone with the phone. */
  credentialId: string | null = null,
) {
  const code = generateCode();
  const ttlSeconds =
    purpose === "activation" ? ACTIVATION_CODE_EXPIRY_MINUTES * 60 : settings.otp_expiry_seconds;
  await tx
    .update(verificationCodes)
    .set({ consumedAt: new Date() })
    .where(
      and(
        eq(verificationCodes.userId, user.id),
        eq(verificationCodes.purpose, purpose),
        isNull(verificationCodes.consumedAt),
        channelIs(credentialId),
      ),
    );
  await tx.insert(verificationCodes).values({
    userId: user.id,
    purpose,
    codeHash: hashCode(ctx.config.jwtSecret, user.id, purpose, code),
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    credentialId,
  });
  const minutes = Math.round(ttlSeconds / 60);
  const body =
    purpose === "activation"
      ? `Turnout: your activation code is ${code}. It expires in ${minutes} minutes.`
      : `Turnout: your sign-in code is ${code}. It expires in ${minutes} minutes. Never share it.`;
  await enqueueSms(tx, {
    to: user.phone,
    body,
    kind: purpose === "activation" ? "activation" : "otp",
    userId: user.id,
  });
}

type CodeCheck = "ok" | "invalid" | "voided" | "expired";

/**
 * Codes come in channels: each recognised device's own (its credential), and one for anyone with the
 * phone (null). A request replaces, and a guess reaches, only the code of its own channel.
 */
const channelIs = (credentialId: string | null) =>
  credentialId ? eq(verificationCodes.credentialId, credentialId) : isNull(verificationCodes.credentialId);

async function latestOpenCode(db: Database, userId: number, purpose: Purpose, credentialId: string | null) {
  const [row] = await db
    .select()
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.userId, userId),
        eq(verificationCodes.purpose, purpose),
        isNull(verificationCodes.consumedAt),
        channelIs(credentialId),
      ),
    )
    .orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id))
    .limit(1);
  return row;
}

/**
 * Compares `code` with the open code; the open code accepts at most `allowance` wrong guesses and
 * is voided by the last of them, so its owner requests a new one rather than being locked out.
 */
async function checkCode(
  ctx: ServiceContext,
  user: UserRow,
  purpose: Purpose,
  code: string,
  allowance: number,
  credentialId: string | null = null,
): Promise<CodeCheck> {
  const row = await latestOpenCode(ctx.db, user.id, purpose, credentialId);
  if (!row) return "invalid";
  // The guess is taken before the comparison, so parallel guesses cannot overrun the allowance.
  const [taken] = await ctx.db
    .update(verificationCodes)
    .set({ attempts: sql`${verificationCodes.attempts} + 1` })
    .where(
      and(
        eq(verificationCodes.id, row.id),
        isNull(verificationCodes.consumedAt),
        lt(verificationCodes.attempts, allowance),
      ),
    )
    .returning({ attempts: verificationCodes.attempts });
  if (!taken) return (await voidCode(ctx.db, row.id)) ? "voided" : "invalid";
  if (codeMatches(ctx.config.jwtSecret, user.id, purpose, code, row.codeHash)) {
    // The right code uses up no guess: a sign-in refused for the session limit may be repeated.
    await ctx.db
      .update(verificationCodes)
      .set({ attempts: sql`${verificationCodes.attempts} - 1` })
      .where(eq(verificationCodes.id, row.id));
    return row.expiresAt.getTime() > Date.now() ? "ok" : "expired";
  }
  if (taken.attempts >= allowance) return (await voidCode(ctx.db, row.id)) ? "voided" : "invalid";
  return "invalid";
}

/** Wrong guesses one code accepts: fewer while the phone is over its daily ceiling. */
async function guessAllowance(db: Database, phone: string, settings: SecuritySettings): Promise<number> {
  return (await isGuarded(db, phone))
    ? settings.otp_guarded_max_failed_attempts
    : settings.otp_max_failed_attempts;
}

/** Whether the phone is over its daily ceiling of wrong codes (guarded for a day). */
async function isGuarded(db: Database, phone: string): Promise<boolean> {
  return (await lockoutRemaining(db, phoneLockKey(phone))) > 0;
}

/** Voids an open code; false when it was used or voided already. */
async function voidCode(db: Database, codeId: number): Promise<boolean> {
  const voided = await db
    .update(verificationCodes)
    .set({ consumedAt: new Date() })
    .where(and(eq(verificationCodes.id, codeId), isNull(verificationCodes.consumedAt)))
    .returning({ id: verificationCodes.id });
  return voided.length === 1;
}

/** Marks the open code used; false when another request used it first (codes are single use). */
async function consumeLatestCode(
  tx: Database,
  userId: number,
  purpose: Purpose,
  credentialId: string | null = null,
): Promise<boolean> {
  const row = await latestOpenCode(tx, userId, purpose, credentialId);
  if (!row) return false;
  return voidCode(tx, row.id);
}

function codeError(checked: CodeCheck): AppError {
  if (checked === "expired") {
    return new AppError(400, "code_expired", "This code has expired. Please request a new one.");
  }
  if (checked === "voided") {
    return new AppError(
      400,
      "invalid_code",
      "That code is not correct, and after too many wrong tries it has been cancelled. Please request a new code.",
    );
  }
  return new AppError(400, "invalid_code", "That code is not correct. Please check it and try again.");
}

/** Throws 429 while this address is locked out, of every phone or of this one. */
async function assertAddressNotLocked(db: Database, ip: string, phone: string): Promise<void> {
  const remaining = await lockoutRemaining(db, addressLockKey(ip), addressPhoneLockKey(ip, phone));
  if (remaining > 0) throw rateLimited(tooManyAttempts(remaining), remaining);
}

/**
 * Counts a code request per address, per phone from this address, and per phone from every address
 * together: a ceiling one network cannot use up, so the owner can still ask from another. A guarded
 * phone gets far fewer. Throws 429 (and records otp_request_limited) when a count is over.
 */
async function consumeCodeRequest(
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
async function failAttempt(
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
async function failOwnAttempt(
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
async function voidOpenCodes(
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
