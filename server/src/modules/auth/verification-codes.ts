// One-time codes in the database: issued (with their SMS), checked, voided, consumed.
import { ACTIVATION_CODE_EXPIRY_MINUTES } from "@turnout/domain";
import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { users, verificationCodes } from "../../db/schema.js";
import { AppError } from "../../errors.js";
import { lockoutRemaining, phoneLockKey } from "../../shared/security/limits.js";
import type { SecuritySettings } from "../../shared/security/settings.js";
import { enqueueSms } from "../../sms/queue.js";
import { codeMatches, generateCode, hashCode } from "./codes.js";

type Purpose = "login" | "activation";
export type UserRow = typeof users.$inferSelect;

export async function findUserByPhone(db: Database, phone: string): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.phone, phone));
  return user;
}

/** Replaces any open code of this purpose with a new one and queues the SMS that carries it. */
export async function issueCode(
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

export type CodeCheck = "ok" | "invalid" | "voided" | "expired";

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
export async function checkCode(
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
export async function guessAllowance(
  db: Database,
  phone: string,
  settings: SecuritySettings,
): Promise<number> {
  return (await isGuarded(db, phone))
    ? settings.otp_guarded_max_failed_attempts
    : settings.otp_max_failed_attempts;
}

/** Whether the phone is over its daily ceiling of wrong codes (guarded for a day). */
export async function isGuarded(db: Database, phone: string): Promise<boolean> {
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
export async function consumeLatestCode(
  tx: Database,
  userId: number,
  purpose: Purpose,
  credentialId: string | null = null,
): Promise<boolean> {
  const row = await latestOpenCode(tx, userId, purpose, credentialId);
  if (!row) return false;
  return voidCode(tx, row.id);
}

export function codeError(checked: CodeCheck): AppError {
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
