// Receivers that notice their own silence (issue 33): the state of a receiver from its last heartbeat
// and last page, the change of state that is worth telling admins about, how a quiet period is learned
// from history, and what the System Monitor's health card says about receivers. Pure: the server's
// checker feeds it the stored times and the clock.
import { z } from "zod/mini";
import { capcodeSchema } from "./capcode.js";

/**
 * - `unknown`: never heard from (a receiver just registered, or the legacy key unused): no alarm.
 * - `ok`: heartbeats (or pages) arrive, and a page was heard within its quiet period.
 * - `late`: two heartbeat intervals have passed without a heartbeat or page.
 * - `down`: nothing for longer than its down setting.
 * - `quiet`: it heartbeats, but has heard no page for longer than its quiet period (antenna, decoder).
 */
export const RECEIVER_STATES = ["unknown", "ok", "late", "down", "quiet"] as const;
export type ReceiverState = (typeof RECEIVER_STATES)[number];

/** The states that are a problem (an alarm while in them, a recovery notice when leaving them). */
export const RECEIVER_PROBLEM_STATES: readonly ReceiverState[] = ["late", "down", "quiet"];

/** A receiver is late after this many heartbeat intervals without a sign of life. */
export const LATE_AFTER_INTERVALS = 2;

export const RECEIVER_STATE_LABELS: Record<ReceiverState, string> = {
  unknown: "Not heard yet",
  ok: "OK",
  late: "Late",
  down: "Down",
  quiet: "Quiet",
};

/** Bounds of a receiver's settings, in seconds. */
export const RECEIVER_LIMITS = {
  heartbeatInterval: { min: 5, max: 86_400 },
  downAfter: { min: 10, max: 7 * 86_400 },
  quietAfter: { min: 60, max: 30 * 86_400 },
} as const;

const secondsSchema = (name: string, { min, max }: { min: number; max: number }) => {
  const message = `${name} must be a whole number of seconds from ${min} to ${max}`;
  return z.number(message).check(z.int(message), z.minimum(min, message), z.maximum(max, message));
};

/**
 * A receiver as an admin registers it (POST /admin/receivers) and the fields a change may hold (PATCH
 * /admin/receivers/{id}): the server's request schema and the console's form both check with it. The
 * expected agencies' ids are the server's own id rule (added there); the form picks them from a list.
 */
export const receiverFieldsSchema = z.object({
  name: z
    .string("name is required")
    .check(
      z.trim(),
      z.minLength(1, "name is required"),
      z.maxLength(100, "name must be at most 100 characters"),
    ),
  location: z.optional(
    z.nullable(z.string().check(z.trim(), z.maxLength(200, "location must be at most 200 characters"))),
  ),
  expected_capcodes: z.optional(
    z
      .array(capcodeSchema, "expected_capcodes must be a list of capcodes")
      .check(z.maxLength(1000, "at most 1000 expected capcodes")),
  ),
  heartbeat_interval_seconds: z.optional(
    secondsSchema("heartbeat_interval_seconds", RECEIVER_LIMITS.heartbeatInterval),
  ),
  down_after_seconds: z.optional(secondsSchema("down_after_seconds", RECEIVER_LIMITS.downAfter)),
  /** The admin's quiet period; null: learned from the receiver's history. */
  quiet_after_seconds: z.optional(
    z.nullable(secondsSchema("quiet_after_seconds", RECEIVER_LIMITS.quietAfter)),
  ),
});
export type ReceiverFields = z.output<typeof receiverFieldsSchema>;

export type ReceiverTiming = {
  /** Last heartbeat or page (ms since epoch), null when never heard from. */
  lastSeenAt: number | null;
  /** Last page heard (ms), null when none. */
  lastMessageAt: number | null;
  /** When it was registered (ms): the quiet period counts from here when it never heard a page. */
  createdAt: number;
  heartbeatIntervalSeconds: number;
  downAfterSeconds: number;
  /** The quiet period in force (the admin's, or the learned one); null: no quiet alarm. */
  quietAfterSeconds: number | null;
};

/** A receiver's timing from its stored row (dates) and the quiet period in force. */
export function receiverTimingOf(
  r: {
    lastSeenAt: Date | null;
    lastMessageAt: Date | null;
    createdAt: Date;
    heartbeatIntervalSeconds: number;
    downAfterSeconds: number;
  },
  quietAfterSeconds: number | null,
): ReceiverTiming {
  return {
    lastSeenAt: r.lastSeenAt?.getTime() ?? null,
    lastMessageAt: r.lastMessageAt?.getTime() ?? null,
    createdAt: r.createdAt.getTime(),
    heartbeatIntervalSeconds: r.heartbeatIntervalSeconds,
    downAfterSeconds: r.downAfterSeconds,
    quietAfterSeconds,
  };
}

/** The receiver's state at `now` (default: the clock). */
export function receiverState(r: ReceiverTiming, now: number = Date.now()): ReceiverState {
  if (r.lastSeenAt === null) return "unknown";
  const silentMs = now - r.lastSeenAt;
  // Down is never sooner than late: a down setting below two intervals means down at late.
  const lateMs = LATE_AFTER_INTERVALS * r.heartbeatIntervalSeconds * 1000;
  if (silentMs > Math.max(r.downAfterSeconds * 1000, lateMs)) return "down";
  if (silentMs > lateMs) return "late";
  if (r.quietAfterSeconds !== null) {
    const lastPage = r.lastMessageAt ?? r.createdAt;
    if (now - lastPage > r.quietAfterSeconds * 1000) return "quiet";
  }
  return "ok";
}

export type ReceiverChange = "late" | "down" | "quiet" | "recovered";

/**
 * What a change of state from `previous` to `next` tells admins: the new problem, `recovered` when a
 * problem ends, or null (no change, or a first contact: unknown to ok is not news).
 */
export function receiverChange(previous: ReceiverState, next: ReceiverState): ReceiverChange | null {
  if (previous === next) return null;
  if (next === "late" || next === "down" || next === "quiet") return next;
  if (next === "ok" && RECEIVER_PROBLEM_STATES.includes(previous)) return "recovered";
  return null;
}

/** The notice for a change, as SMS text and push body (no key, no phone number). */
export function receiverChangeText(
  name: string,
  change: ReceiverChange,
  r: { lastSeenAt: number | null; lastMessageAt: number | null },
  now: number = Date.now(),
): string {
  const ago = (at: number | null) => (at === null ? "never" : `${durationText(now - at)} ago`);
  switch (change) {
    case "late":
      return `Turnout: receiver ${name} is late: no heartbeat for ${ago(r.lastSeenAt).replace(" ago", "")}.`;
    case "down":
      return `Turnout: receiver ${name} is DOWN: nothing heard from it since ${ago(r.lastSeenAt)}. Pages it alone hears are being missed.`;
    case "quiet":
      return `Turnout: receiver ${name} is quiet: it is running but has heard no page (last ${ago(r.lastMessageAt)}). Check its antenna and decoder.`;
    case "recovered":
      return `Turnout: receiver ${name} has recovered and is heard from again.`;
  }
}

/** A duration as people say it: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** Pages needed in the history before a quiet period is learned from it. */
export const QUIET_LEARN_MIN_PAGES = 20;
/** A learned quiet period is never shorter than this (seconds). */
export const QUIET_LEARN_FLOOR_SECONDS = 3600;

/**
 * The quiet period learned from when pages were heard (ms, any order): one and a half times the longest
 * gap between pages in the history, at least an hour; null when the history is too short to tell.
 */
export function learnQuietPeriod(heardAt: readonly number[]): number | null {
  if (heardAt.length < QUIET_LEARN_MIN_PAGES) return null;
  const sorted = [...heardAt].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) longest = Math.max(longest, sorted[i]! - sorted[i - 1]!);
  return Math.max(QUIET_LEARN_FLOOR_SECONDS, Math.ceil((1.5 * longest) / 1000));
}

export type ReceiverHealthInput = {
  id: number;
  name: string;
  state: ReceiverState;
  /** The agencies it is expected to hear (its agencies and those of its expected capcodes). */
  agencyIds: readonly number[];
};

/**
 * What the health card says about receivers (SPEC 9, issue 33): a down receiver is critical when it is
 * the only receiver for one of its agencies (no other receiver expected to hear it is up), a warning
 * otherwise; late and quiet receivers are warnings.
 */
export function receiverHealth(
  receivers: readonly ReceiverHealthInput[],
  agencyName: (id: number) => string = (id) => `agency ${id}`,
): { issues: string[]; warnings: string[] } {
  const issues: string[] = [];
  const warnings: string[] = [];
  const up = (r: ReceiverHealthInput) => r.state === "ok" || r.state === "quiet";
  for (const r of receivers) {
    if (r.state === "down") {
      const alone = r.agencyIds.filter(
        (agency) => !receivers.some((o) => o.id !== r.id && up(o) && o.agencyIds.includes(agency)),
      );
      if (alone.length > 0) {
        issues.push(
          `Receiver ${r.name} is down and is the only receiver for ${alone.map(agencyName).join(", ")}`,
        );
      } else warnings.push(`Receiver ${r.name} is down`);
    } else if (r.state === "late") warnings.push(`Receiver ${r.name} is late`);
    else if (r.state === "quiet") warnings.push(`Receiver ${r.name} has heard no page for too long`);
  }
  return { issues, warnings };
}

/** The heartbeat a receiver posts (POST /api/ingest/heartbeat). */
export const DECODER_STATUSES = ["ok", "silent", "stopped", "unknown"] as const;
export type DecoderStatus = (typeof DECODER_STATUSES)[number];

export const heartbeatSchema = z.object({
  spool_depth: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1e9))),
  dead_letters: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(1e9))),
  decoder: z.optional(z.enum(DECODER_STATUSES, `decoder must be one of ${DECODER_STATUSES.join(", ")}`)),
  /** When the decoder last produced a line (ISO 8601), if it has. */
  decoder_last_line_at: z.optional(z.nullable(z.string().check(z.iso.datetime({ offset: true })))),
  uptime_seconds: z.optional(z.number().check(z.minimum(0), z.maximum(1e10))),
  version: z.optional(z.string().check(z.trim(), z.maxLength(64))),
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;
