// Registration and activation (SPEC: sign-up, activation code, auto-activation).

import { ACTIVATION_CODE_EXPIRY_MINUTES, normalizePhone, type RegistrationInput } from "@turnout/domain";
import { eq } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import { agencies, userAgencies, users } from "../../db/schema.js";
import { AppError, conflict } from "../../errors.js";
import { accountReadySms, isAutoActivationEnabled } from "../../shared/account-activation.js";
import { recordOtpAttempt, recordSecurityEvent } from "../../shared/security/events.js";
import { addressPhoneLockKey, clearFailures, consumeRateLimit } from "../../shared/security/limits.js";
import { getSecuritySettings } from "../../shared/security/settings.js";
import { reserveStrangerSms } from "../../shared/security/sms-budget.js";
import { writeUserUnits } from "../../shared/units.js";
import { enqueueSms } from "../../sms/queue.js";
import {
  addressOf,
  assertAddressNotLocked,
  consumeCodeRequest,
  failAttempt,
  proofOfWorkUnderAttack,
} from "./lockouts.js";
import {
  checkCode,
  codeError,
  consumeLatestCode,
  findUserByPhone,
  guessAllowance,
  issueCode,
} from "./verification-codes.js";

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
      // The auto-activation module texts the admins chosen for it, in this transaction.
      await ctx.events.publish("accountAwaitingReview", { tx, user });
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
