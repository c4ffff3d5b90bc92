import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { ingestKeys } from "../../db/schema.js";
import { notFound } from "../../errors.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

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
 * Resolves an ingest key to the name it was issued under: INGEST_API_KEY from the environment, or a
 * key an admin issued and has not revoked. Null for anything else (the caller answers 401).
 */
export async function verifyIngestKey(
  db: Database,
  envKey: string | null,
  presented: string | null,
): Promise<{ name: string } | null> {
  if (!presented || presented.length > 200) return null;
  if (isEnvIngestKey(envKey, presented)) return { name: "env" };
  const [row] = await db
    .select({ id: ingestKeys.id, name: ingestKeys.name, lastUsedAt: ingestKeys.lastUsedAt })
    .from(ingestKeys)
    .where(and(eq(ingestKeys.keyHash, sha256(presented)), isNull(ingestKeys.revokedAt)));
  if (!row) return null;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db.update(ingestKeys).set({ lastUsedAt: new Date() }).where(eq(ingestKeys.id, row.id));
  }
  return { name: row.name };
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
