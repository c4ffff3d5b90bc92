import { formatDateTime, formatRelativeTime } from "@turnout/domain";

/** Enough labels for every card a long shift loads; the cache starts again beyond this. */
const MAX_ENTRIES = 20_000;
const MINUTE_MS = 60_000;

const absolute = new Map<string, string>();
let relative = new Map<string, string>();
let relativeMinute = -1;

/**
 * formatDateTime with memory: the domain formats through Intl on every call, which is too slow to
 * repeat for each card that scrolls into view. An instant's label never changes.
 */
export function absoluteTimeLabel(createdAt: string): string {
  let label = absolute.get(createdAt);
  if (label === undefined) {
    if (absolute.size >= MAX_ENTRIES) absolute.clear();
    label = formatDateTime(createdAt);
    absolute.set(createdAt, label);
  }
  return label;
}

/** The card's short relative time (a date after 7 days), remembered for the current minute. */
export function relativeTimeLabel(createdAt: string, now: number): string {
  const minute = Math.floor(now / MINUTE_MS);
  if (minute !== relativeMinute) {
    relative = new Map();
    relativeMinute = minute;
  }
  let label = relative.get(createdAt);
  if (label === undefined) {
    if (relative.size >= MAX_ENTRIES) relative.clear();
    label = formatRelativeTime(createdAt, now, { short: true });
    relative.set(createdAt, label);
  }
  return label;
}

const DAY_MS = 24 * 60 * MINUTE_MS;

/** The time of day ("2:05 pm") for a time within the last day, else the full time and date. */
export function clockTimeLabel(createdAt: string, now: number): string {
  const label = absoluteTimeLabel(createdAt);
  return now - Date.parse(createdAt) < DAY_MS ? (label.split(",")[0] ?? label) : label;
}
