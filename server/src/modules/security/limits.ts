import { retryAfterMinutes } from "@turnout/domain";
import { eq, sql } from "drizzle-orm";
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

export function tooManyAttempts(retryAfterSeconds: number): string {
  const minutes = retryAfterMinutes(retryAfterSeconds);
  return `Too many attempts. Please wait ${minutes} minute${minutes === 1 ? "" : "s"} before trying again.`;
}

/** Seconds until `identifier`'s lockout ends, or 0 when it is not locked. */
export async function lockoutRemaining(db: Database, identifier: string): Promise<number> {
  const [row] = await db
    .select({ lockedUntil: bruteForceLocks.lockedUntil })
    .from(bruteForceLocks)
    .where(eq(bruteForceLocks.identifier, identifier));
  const until = row?.lockedUntil?.getTime() ?? 0;
  return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
}

/**
 * Adds one failure for `identifier`; at `maxFailures` it is locked for `lockSeconds` and the
 * failure count starts again. Returns the seconds locked (0 when this failure did not lock it).
 */
export async function recordFailure(
  db: Database,
  identifier: string,
  kind: "phone" | "ip",
  maxFailures: number,
  lockSeconds: number,
): Promise<number> {
  const [row] = await db
    .insert(bruteForceLocks)
    .values({ identifier, kind, failures: 1 })
    .onConflictDoUpdate({
      target: bruteForceLocks.identifier,
      set: { failures: sql`${bruteForceLocks.failures} + 1`, updatedAt: new Date() },
    })
    .returning({ failures: bruteForceLocks.failures });
  if ((row?.failures ?? 0) < maxFailures) return 0;
  await db
    .update(bruteForceLocks)
    .set({ failures: 0, lockedUntil: new Date(Date.now() + lockSeconds * 1000), updatedAt: new Date() })
    .where(eq(bruteForceLocks.identifier, identifier));
  return lockSeconds;
}

/** Forgets failures and any lockout of `identifier` (after a success, or an admin's reset). */
export async function clearFailures(db: Database, identifier: string): Promise<void> {
  await db.delete(bruteForceLocks).where(eq(bruteForceLocks.identifier, identifier));
}
