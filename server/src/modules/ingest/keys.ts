import { randomBytes, timingSafeEqual } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { ingestKeys } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import {
  legacyReceiver,
  type ReceiverIdentity,
  receiverForIngestKey,
  sha256,
  verifyReceiverKey,
} from "../../shared/receiver-identity.js";

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a), "hex");
  const y = Buffer.from(sha256(b), "hex");
  return timingSafeEqual(x, y);
}

/** Whether `presented` is the key given in the environment (compared in constant time). */
export function isEnvIngestKey(envKey: string | null, presented: string | null): boolean {
  return Boolean(envKey && presented && presented.length <= 200 && sameSecret(presented, envKey));
}

/**
 * Resolves an ingest key to its receiver (issue 33) and the name its messages are stored under by
 * default: INGEST_API_KEY from the environment (the legacy receiver), a receiver's own key, or a key an
 * admin issued under the older ingest keys and has not revoked (a receiver of its own). Null for
 * anything else (the caller answers 401).
 */
export async function verifyIngestKey(
  db: Database,
  envKey: string | null,
  presented: string | null,
): Promise<ReceiverIdentity | null> {
  if (!presented || presented.length > 200) return null;
  if (isEnvIngestKey(envKey, presented)) return legacyReceiver(db);
  const receiver = await verifyReceiverKey(db, presented);
  if (receiver) return receiver;
  const [row] = await db
    .select({ id: ingestKeys.id, name: ingestKeys.name, lastUsedAt: ingestKeys.lastUsedAt })
    .from(ingestKeys)
    .where(and(eq(ingestKeys.keyHash, sha256(presented)), isNull(ingestKeys.revokedAt)));
  if (!row) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.update(ingestKeys).set({ lastUsedAt: new Date() }).where(eq(ingestKeys.id, row.id));
  }
  return receiverForIngestKey(db, row);
}

/** Issues a new ingest key; the key itself is in the result once and is stored only as a hash. */
export async function issueIngestKey(db: Database, name: string, createdBy: number) {
  const key = `tik_${randomBytes(24).toString("base64url")}`;
  const [row] = await db
    .insert(ingestKeys)
    .values({ name, keyHash: sha256(key), keyPrefix: key.slice(0, 12), createdBy })
    .returning();
  return { ...presentIngestKey(row!), key };
}

export async function listIngestKeys(db: Database) {
  const rows = await db.select().from(ingestKeys).orderBy(desc(ingestKeys.createdAt));
  return rows.map(presentIngestKey);
}

export async function revokeIngestKey(db: Database, id: number): Promise<void> {
  const rows = await db
    .update(ingestKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(ingestKeys.id, id), isNull(ingestKeys.revokedAt)))
    .returning({ id: ingestKeys.id });
  if (rows.length === 0) throw notFound("Ingest key not found");
}

function presentIngestKey(k: typeof ingestKeys.$inferSelect) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.keyPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
  };
}
