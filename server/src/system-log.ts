import type { Database } from "./db/client.js";
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
