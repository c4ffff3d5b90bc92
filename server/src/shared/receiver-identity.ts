// Which receiver an ingest key stands for (issue 33): read by ingest on every request, issued by the
// receivers module (receivers/keys.ts), so it sits below both.
import { createHash } from "node:crypto";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { receiverKeys, receivers } from "../db/schema.js";

/** A key's stored form: its SHA-256, hex. */
export const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

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
