import { retryAfterMinutes } from "@turnout/domain";
import { and, eq, inArray, like, or, sql } from "drizzle-orm";
import type { Cache } from "../../cache/cache.js";
import type { Database } from "../../db/client.js";
import { bruteForceLocks } from "../../db/schema.js";
import { rateLimited } from "../../errors.js";

/**
 * Counts one hit of `key` in a fixed window; throws a 429 AppError (with retryAfter) once the count
 * goes over `limit`. The counter lives in the cache store, so every server instance shares it.
 */
export async function consumeRateLimit(
  cache: Cache,
  key: string,
  limit: number,
  windowSeconds: number,
  message: (retryAfterSeconds: number) => string = tooManyAttempts,
): Promise<void> {
  const { count, ttlSeconds } = await cache.increment(`rl:${key}`, windowSeconds);
  if (count > limit) throw rateLimited(message(ttlSeconds), ttlSeconds);
}

/** How many hits `key` has in its current window (consumeRateLimit's count), 0 when none. */
export async function rateLimitCount(cache: Cache, key: string): Promise<number> {
  return Number(await cache.get(`rl:${key}`)) || 0;
}

/** Forgets `key`'s window (an admin's or the operator's reset). */
export async function forgetRateLimit(cache: Cache, key: string): Promise<void> {
  await cache.del(`rl:${key}`);
}

/** The window count of code requests for a phone from strangers together. */
export const phoneRequestsKey = (phone: string) => `otp:phone:${phone}`;
/** The window count of code requests for a guarded phone. */
export const guardedRequestsKey = (phone: string) => `otp:guarded:${phone}`;

export function tooManyAttempts(retryAfterSeconds: number): string {
  const minutes = retryAfterMinutes(retryAfterSeconds);
  return `Too many attempts. Please wait ${minutes} minute${minutes === 1 ? "" : "s"} before trying again.`;
}

/** Failures are forgotten after a day without one, and no lockout lasts longer than this. */
export const FAILURE_MEMORY_SECONDS = 86_400;

/** What a `brute_force_locks` row counts wrong codes for. */
export type LockKind = "phone" | "ip" | "ip_phone" | "credential";

/** The row counting wrong codes for a phone from every address (its daily ceiling). */
export const phoneLockKey = (phone: string) => `phone:${phone}`;
/** The row counting wrong codes from one client address, for any phones. */
export const addressLockKey = (ip: string) => `ip:${ip}`;
/** The row counting wrong codes from one client address for one phone. */
export const addressPhoneLockKey = (ip: string, phone: string) => `ip-phone:${ip}|${phone}`;

/** The row counting wrong codes from one recognised device (its credential). */
export const credentialLockKey = (credentialId: string) => `cred:${credentialId}`;

/**
 * Wrong codes counted for `identifier` in its memory (a day after the last; 0 when none), and whether
 * it is locked now: one read for both.
 */
export async function failureState(
  db: Database,
  identifier: string,
): Promise<{ failures: number; locked: boolean }> {
  const forgetBefore = new Date(Date.now() - FAILURE_MEMORY_SECONDS * 1000);
  const [row] = await db
    .select({
      failures: bruteForceLocks.failures,
      updatedAt: bruteForceLocks.updatedAt,
      lockedUntil: bruteForceLocks.lockedUntil,
    })
    .from(bruteForceLocks)
    .where(eq(bruteForceLocks.identifier, identifier));
  return {
    failures: row && row.updatedAt > forgetBefore ? row.failures : 0,
    locked: (row?.lockedUntil?.getTime() ?? 0) > Date.now(),
  };
}

/** Seconds until the longest lockout among `identifiers` ends, or 0 when none is locked. */
export async function lockoutRemaining(db: Database, ...identifiers: string[]): Promise<number> {
  const rows = await db
    .select({ lockedUntil: bruteForceLocks.lockedUntil })
    .from(bruteForceLocks)
    .where(inArray(bruteForceLocks.identifier, identifiers));
  const until = Math.max(0, ...rows.map((r) => r.lockedUntil?.getTime() ?? 0));
  return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
}

/**
 * Adds one failure for `identifier`. Every `maxFailures`-th failure locks it: for `lockSeconds` the
 * first time and twice as long each further time (exponential back-off), at most a day unless
 * `lockSeconds` is longer. Failures are forgotten after a day without one. Returns the failures
 * counted and the seconds this failure locked it for (0 when it did not lock it).
 */
export async function recordFailure(
  db: Database,
  identifier: string,
  kind: LockKind,
  maxFailures: number,
  lockSeconds: number,
): Promise<{ failures: number; lockedSeconds: number }> {
  const forgetBefore = new Date(Date.now() - FAILURE_MEMORY_SECONDS * 1000).toISOString();
  const [row] = await db
    .insert(bruteForceLocks)
    .values({ identifier, kind, failures: 1 })
    .onConflictDoUpdate({
      target: bruteForceLocks.identifier,
      set: {
        failures: sql`CASE WHEN ${bruteForceLocks.updatedAt} < ${forgetBefore}::timestamptz THEN 1 ELSE ${bruteForceLocks.failures} + 1 END`,
        updatedAt: new Date(),
      },
    })
    .returning({ failures: bruteForceLocks.failures });
  const failures = row?.failures ?? 0;
  if (failures < maxFailures || failures % maxFailures !== 0) return { failures, lockedSeconds: 0 };
  const lockedSeconds = Math.min(
    lockSeconds * 2 ** (failures / maxFailures - 1),
    Math.max(lockSeconds, FAILURE_MEMORY_SECONDS),
  );
  await db
    .update(bruteForceLocks)
    .set({ lockedUntil: new Date(Date.now() + lockedSeconds * 1000) })
    .where(eq(bruteForceLocks.identifier, identifier));
  return { failures, lockedSeconds };
}

/** Forgets failures and any lockout of `identifier` (after a success, or an admin's reset). */
export async function clearFailures(db: Database, identifier: string): Promise<void> {
  await db.delete(bruteForceLocks).where(eq(bruteForceLocks.identifier, identifier));
}

/** Forgets every failure counted for `phone`: its daily ceiling and each address's count for it. */
export async function clearPhoneFailures(db: Database, phone: string): Promise<void> {
  await db
    .delete(bruteForceLocks)
    .where(
      or(
        eq(bruteForceLocks.identifier, phoneLockKey(phone)),
        and(
          eq(bruteForceLocks.kind, "ip_phone"),
          like(bruteForceLocks.identifier, `ip-phone:%|${phone.replace(/[\\%_]/g, "\\$&")}`),
        ),
      ),
    );
}
