import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { receiverKeys, receivers } from "../../db/schema.js";
import { notFound } from "../../errors.js";

export const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** Longest a rotated-out key stays valid (hours); the default gives a receiver a day to switch. */
export const MAX_ROTATION_GRACE_HOURS = 24 * 30;
export const DEFAULT_ROTATION_GRACE_HOURS = 24;

/** The receiver an ingest request comes from, and the name its messages are stored under by default. */
export type ReceiverIdentity = { receiverId: number; name: string };

/** A receiver's name as a message source (alerts.source is 64 characters). */
const sourceName = (name: string) => name.slice(0, 64);

const legacyIds = new WeakMap<Database, number>();

/** The legacy receiver (the shared INGEST_API_KEY): made by migration 0027, made again if deleted. */
export async function legacyReceiver(db: Database): Promise<ReceiverIdentity> {
  const known = legacyIds.get(db);
  if (known !== undefined) return { receiverId: known, name: "env" };
  const [row] = await db
    .insert(receivers)
    .values({
      name: "Legacy shared key (INGEST_API_KEY)",
      kind: "legacy",
      heartbeatIntervalSeconds: 900,
      downAfterSeconds: 3600,
    })
    .onConflictDoNothing()
    .returning({ id: receivers.id });
  const id =
    row?.id ??
    (await db.select({ id: receivers.id }).from(receivers).where(eq(receivers.kind, "legacy")))[0]!.id;
  legacyIds.set(db, id);
  // "env" stays the default source of its messages, as before receivers existed (idempotency keys).
  return { receiverId: id, name: "env" };
}

/**
 * The receiver whose key this is: a key not revoked, not past the end of its rotation grace, of a
 * receiver not deleted. Marks the key used (at most once a minute).
 */
export async function verifyReceiverKey(db: Database, presented: string): Promise<ReceiverIdentity | null> {
  const [row] = await db
    .select({
      keyId: receiverKeys.id,
      lastUsedAt: receiverKeys.lastUsedAt,
      receiverId: receivers.id,
      name: receivers.name,
    })
    .from(receiverKeys)
    .innerJoin(receivers, eq(receivers.id, receiverKeys.receiverId))
    .where(
      and(
        eq(receiverKeys.keyHash, sha256(presented)),
        isNull(receiverKeys.revokedAt),
        or(isNull(receiverKeys.expiresAt), gt(receiverKeys.expiresAt, sql`now()`)),
        isNull(receivers.deletedAt),
      ),
    );
  if (!row) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.update(receiverKeys).set({ lastUsedAt: new Date() }).where(eq(receiverKeys.id, row.keyId));
  }
  return { receiverId: row.receiverId, name: sourceName(row.name) };
}

/**
 * The receiver of a key issued under the older admin ingest keys: one receiver per such key, made on
 * its first use when migration 0027 did not (a key issued since). Null once that receiver is deleted.
 */
export async function receiverForIngestKey(
  db: Database,
  key: { id: number; name: string },
): Promise<ReceiverIdentity | null> {
  const find = () =>
    db
      .select({ id: receivers.id, deletedAt: receivers.deletedAt })
      .from(receivers)
      .where(eq(receivers.ingestKeyId, key.id));
  let [row] = await find();
  if (!row) {
    await db
      .insert(receivers)
      .values({ name: key.name, ingestKeyId: key.id, heartbeatIntervalSeconds: 900, downAfterSeconds: 3600 })
      .onConflictDoNothing();
    [row] = await find();
  }
  if (!row || row.deletedAt) return null;
  return { receiverId: row.id, name: sourceName(key.name) };
}

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
