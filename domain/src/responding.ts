// Who is responding to an emergency job (issue 15): the answers, their ETA choices and when answers close.

/** A member's answer to an emergency job. */
export const RESPONSE_STATUSES = ["responding", "not_available"] as const;
export type ResponseStatus = (typeof RESPONSE_STATUSES)[number];

/** The optional ETA choices in minutes; 15 reads "15+ min". */
export const RESPONSE_ETAS = [5, 10, 15] as const;
export type ResponseEta = (typeof RESPONSE_ETAS)[number];

/** Answers close this many hours after the job's first page unless configured otherwise. */
export const DEFAULT_RESPONSE_WINDOW_HOURS = 12;
/** The range the window may be configured in (RESPONSE_WINDOW_HOURS). */
export const RESPONSE_WINDOW_HOURS_MIN = 1;
export const RESPONSE_WINDOW_HOURS_MAX = 72;

/** Only emergency jobs take answers. */
export function takesResponses(type: string): boolean {
  return type === "emergency";
}

const HOUR_MS = 3_600_000;

/** When answers to a job that was first paged at `jobStartedAt` close. */
export function responseClosesAt(jobStartedAt: Date | string | number, windowHours: number): Date {
  return new Date(new Date(jobStartedAt).getTime() + windowHours * HOUR_MS);
}

/** Whether a job first paged at `jobStartedAt` still takes answers at `now`. */
export function isResponseOpen(
  jobStartedAt: Date | string | number,
  now: Date | number,
  windowHours: number,
): boolean {
  const at = now instanceof Date ? now.getTime() : now;
  return at < responseClosesAt(jobStartedAt, windowHours).getTime();
}

/** "4 responding, 1 not available"; "No answers yet" when nobody answered. */
export function describeResponseCounts(counts: { responding: number; not_available: number }): string {
  const parts: string[] = [];
  if (counts.responding > 0) parts.push(`${counts.responding} responding`);
  if (counts.not_available > 0) parts.push(`${counts.not_available} not available`);
  return parts.length > 0 ? parts.join(", ") : "No answers yet";
}

/** "5 min", "10 min", "15+ min". */
export function etaLabel(minutes: ResponseEta): string {
  return minutes === 15 ? "15+ min" : `${minutes} min`;
}

/**
 * The time an answer is recorded at: the time the member gave it (an answer given offline and sent
 * later keeps its time), never before the job's first page nor after `now`; absent, `now`.
 */
export function answerTime(given: Date | null | undefined, jobStartedAt: Date, now: Date): Date {
  if (!given || Number.isNaN(given.getTime())) return now;
  const at = Math.min(Math.max(given.getTime(), jobStartedAt.getTime()), now.getTime());
  return new Date(at);
}
