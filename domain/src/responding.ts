// Who is responding to a job (issues 15 and 26): which jobs take answers, the answers, their ETA choices
// and when answers close.

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

/** A page as answerability reads it: its type, its job number, and whether it is a machine page. */
export type AnswerablePage = {
  type?: string | null | undefined;
  job_number?: string | null;
  is_machine?: boolean | null;
};

/** Whether a job takes answers, and when it does not, the reason a member reads instead of buttons. */
export type Answerability = { answerable: true } | { answerable: false; reason: string };

export const NOT_ANSWERABLE = {
  machine: "Machine and test pages take no answers.",
  administrative: "Administrative pages take no answers.",
  noJob: "This page has no job number, so it takes no answers.",
} as const;

/**
 * Whether one page can be answered (issue 26): every page with a job number (SPEC 9 patterns), whatever
 * its type, and an emergency page without one (its own job, as before); never an administrative or a
 * machine page (TIMEUPDATE, test pages).
 */
export function pageAnswerability(page: AnswerablePage): Answerability {
  if (page.is_machine) return { answerable: false, reason: NOT_ANSWERABLE.machine };
  if (page.type === "administrative") return { answerable: false, reason: NOT_ANSWERABLE.administrative };
  if (page.job_number || page.type === "emergency") return { answerable: true };
  return { answerable: false, reason: NOT_ANSWERABLE.noJob };
}

/** A job (its pages) takes answers when any of its pages does; otherwise the first page's reason. */
export function jobAnswerability(pages: readonly AnswerablePage[]): Answerability {
  let first: Answerability | null = null;
  for (const page of pages) {
    const verdict = pageAnswerability(page);
    if (verdict.answerable) return verdict;
    first ??= verdict;
  }
  return first ?? { answerable: false, reason: NOT_ANSWERABLE.noJob };
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
