import { randomBytes } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { receiverKeys } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import { sha256 } from "../../shared/receiver-identity.js";

/** Longest a rotated-out key stays valid (hours); the default gives a receiver a day to switch. */
export const MAX_ROTATION_GRACE_HOURS = 24 * 30;
export const DEFAULT_ROTATION_GRACE_HOURS = 24;

/** A new key for a receiver: in the result once, stored as its hash. */
export async function issueReceiverKey(db: Database, receiverId: number, createdBy: number | null) {
  const key = `trk_${randomBytes(24).toString("base64url")}`;
  const [row] = await db
    .insert(receiverKeys)
    .values({ receiverId, keyHash: sha256(key), keyPrefix: key.slice(0, 12), createdBy })
    .returning();
  return { ...presentReceiverKey(row!), key };
}

/**
 * Rotation without downtime: a new key, and every other valid key of the receiver stays valid for
 * `graceHours` more (0: ends now), so the receiver can be switched over before the old one stops.
 */
export async function rotateReceiverKeys(
  db: Database,
  receiverId: number,
  graceHours: number,
  createdBy: number | null,
) {
  return db.transaction(async (tx) => {
    await tx
      .update(receiverKeys)
      .set({
        expiresAt: sql`least(coalesce(${receiverKeys.expiresAt}, 'infinity'), now() + make_interval(hours => ${graceHours}))`,
      })
      .where(and(eq(receiverKeys.receiverId, receiverId), isNull(receiverKeys.revokedAt)));
    return issueReceiverKey(tx, receiverId, createdBy);
  });
}

export async function revokeReceiverKey(db: Database, receiverId: number, keyId: number): Promise<void> {
  const rows = await db
    .update(receiverKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(receiverKeys.id, keyId),
        eq(receiverKeys.receiverId, receiverId),
        isNull(receiverKeys.revokedAt),
      ),
    )
    .returning({ id: receiverKeys.id });
  if (rows.length === 0) throw notFound("Receiver key not found");
}

export function presentReceiverKey(k: typeof receiverKeys.$inferSelect) {
  const now = Date.now();
  return {
    id: k.id,
    key_prefix: k.keyPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    expires_at: k.expiresAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    valid: !k.revokedAt && (!k.expiresAt || k.expiresAt.getTime() > now),
  };
}
