import { sql } from "drizzle-orm";
import type { Database } from "./db/client.js";
import { rowsOf } from "./db/rows.js";
import { systemLogs } from "./db/schema.js";
import { maskDataInText } from "./logger.js";

/** SPEC 9 log levels, most severe first. */
export const SYSTEM_LOG_LEVELS = ["critical", "error", "warn", "info"] as const;
export type SystemLogLevel = (typeof SYSTEM_LOG_LEVELS)[number];

/** What part of the system an entry is about. */
export type SystemLogCategory =
  | "server"
  | "security"
  | "admin"
  | "ingest"
  | "sms"
  | "receivers"
  | "delivery"
  /** Errors in members' and admins' apps (POST /api/client-errors). */
  | "web";

export type SystemLogEntry = {
  level: SystemLogLevel;
  category: SystemLogCategory;
  message: string;
  details?: Record<string, unknown> | null;
  ip?: string | null;
};

const MAX_MESSAGE_LENGTH = 1000;
const MAX_DEPTH = 4;

/**
 * Appends one entry to the system log the monitor shows. Phone numbers (and the data a database error
 * quotes) are masked in the message and in every string of the details. Never throws: the callers are
 * error paths (the 500 handler, a failing SMS), where a second failure must not hide the first or
 * recurse into the handler; a failed write is reported to `onError` when given.
 */
export async function writeSystemLog(
  db: Database,
  entry: SystemLogEntry,
  onError?: (error: unknown) => void,
): Promise<void> {
  try {
    await db.insert(systemLogs).values({
      level: entry.level,
      category: entry.category,
      message: maskDataInText(entry.message).slice(0, MAX_MESSAGE_LENGTH),
      details: entry.details ? (maskStrings(entry.details, 0) as Record<string, unknown>) : null,
      ipAddress: entry.ip ?? null,
    });
  } catch (error) {
    try {
      onError?.(error);
    } catch {
      // the reporter failed too: nothing more can be done without recursing
    }
  }
}

function maskStrings(value: unknown, depth: number): unknown {
  if (typeof value === "string") return maskDataInText(value).slice(0, MAX_MESSAGE_LENGTH);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested]";
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => maskStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskStrings(v, depth + 1)]));
}

/**
 * How long the system log keeps an entry, and how many it keeps at most (the newest): without a bound
 * an attack (every refused code is a warning) or a receiver sending bad pages for weeks fills a small
 * disk with entries nobody reads. 90 days as the security data (POST /admin/security/cleanup).
 */
export const SYSTEM_LOG_RETENTION = { days: 90, entries: 100_000 } as const;

/** Entries removed per statement, so that on the embedded database other work gets the connection between. */
const PRUNE_BATCH = 5_000;
/** Statements per round at most: a large backlog is cleared over several rounds. */
const PRUNE_BATCHES = 20;

/**
 * Removes the system log's entries older than `retention.days` and those beyond the newest
 * `retention.entries`, oldest first, in batches; resolves to how many it removed.
 */
export async function pruneSystemLog(
  db: Database,
  retention: { days: number; entries: number } = SYSTEM_LOG_RETENTION,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retention.days * 86_400_000).toISOString();
  // The newest entry past the cap (ids grow with time): it and every older one go. Whether any entry
  // is past its days (the time index): most rounds find nothing to do and read no more.
  const [due] = rowsOf<{ beyond: string | null; old: boolean }>(
    await db.execute(sql`
      SELECT (SELECT id FROM ${systemLogs} ORDER BY id DESC OFFSET ${retention.entries} LIMIT 1) AS beyond,
             EXISTS (SELECT 1 FROM ${systemLogs} WHERE timestamp < ${cutoff}::timestamptz) AS old`),
  );
  const lastBeyondCap = due?.beyond ? Number(due.beyond) : 0;
  if (lastBeyondCap === 0 && !due?.old) return 0;
  let removed = 0;
  for (let batch = 0; batch < PRUNE_BATCHES; batch++) {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`
        WITH d AS (
          DELETE FROM ${systemLogs} WHERE id IN (
            SELECT id FROM ${systemLogs}
             WHERE timestamp < ${cutoff}::timestamptz OR id <= ${lastBeyondCap}
             ORDER BY id LIMIT ${PRUNE_BATCH})
          RETURNING 1)
        SELECT count(*)::int AS n FROM d`),
    );
    const n = Number(row?.n ?? 0);
    removed += n;
    if (n < PRUNE_BATCH) break;
  }
  return removed;
}
