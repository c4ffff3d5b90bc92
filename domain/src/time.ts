const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Turns a Date, ISO string or epoch milliseconds into a Date (possibly invalid). */
function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/**
 * One formatter per named time zone: making an Intl.DateTimeFormat costs far more than using one, and
 * every SMS formats through here.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-AU", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * Calendar fields of an instant in a time zone. The runtime's zone (none given: every card, dialog and
 * label of the web app) is read from Date's own local fields, the same zone Intl would use: the first
 * Intl.DateTimeFormat of a page loads the locale's date formats, 35-75 ms in Chromium here and four
 * times that on a slow phone, where Date's fields cost under a millisecond (issue 31).
 */
function zonedParts(date: Date, timeZone: string | undefined) {
  if (timeZone === undefined) {
    return {
      year: date.getFullYear(),
      month: date.getMonth() + 1,
      day: date.getDate(),
      hour: date.getHours(),
      minute: date.getMinutes(),
    };
  }
  const parts = formatterFor(timeZone).formatToParts(date);
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: field("year"),
    month: field("month"),
    day: field("day"),
    hour: field("hour") % 24,
    minute: field("minute"),
  };
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "2:05 pm" from a 24-hour clock's hour and minute. */
function clockText(hour: number, minute: number): string {
  const hour12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${hour12}:${pad(minute)} ${hour < 12 ? "am" : "pm"}`;
}

/** Formats a date as "14 Nov 2026" in the given time zone; "" for an invalid date. */
export function formatShortDate(date: Date | string | number, timeZone?: string): string {
  const value = toDate(date);
  if (Number.isNaN(value.getTime())) return "";
  const { year, month, day } = zonedParts(value, timeZone);
  return `${day} ${MONTHS[month - 1]} ${year}`;
}

/** Formats a date as en-AU "time, date", e.g. "2:05 pm, 22/11/2026", in the given time zone; "" if invalid. */
export function formatDateTime(date: Date | string | number, timeZone?: string): string {
  const value = toDate(date);
  if (Number.isNaN(value.getTime())) return "";
  const { year, month, day, hour, minute } = zonedParts(value, timeZone);
  return `${clockText(hour, minute)}, ${pad(day)}/${pad(month)}/${year}`;
}

/** Formats the time of day as en-AU "2:05 pm" in the given time zone; "" if invalid. */
export function formatClockTime(date: Date | string | number, timeZone?: string): string {
  const value = toDate(date);
  if (Number.isNaN(value.getTime())) return "";
  const { hour, minute } = zonedParts(value, timeZone);
  return clockText(hour, minute);
}

/** "N unit(s) ago" in the long form or "N<u> ago" in the short form. */
function ago(count: number, unit: "minute" | "hour" | "day", short: boolean): string {
  if (short) return `${count}${unit[0]} ago`;
  return `${count} ${unit}${count === 1 ? "" : "s"} ago`;
}

/** Relative time ("Just now", "5 minutes ago" / "5m ago"); with short, 7+ days shows a date. "" if invalid. */
export function formatRelativeTime(
  date: Date | string | number,
  now: Date | number,
  options: { short?: boolean; timeZone?: string } = {},
): string {
  const value = toDate(date);
  if (Number.isNaN(value.getTime())) return "";
  const short = options.short === true;
  const elapsed = (now instanceof Date ? now.getTime() : now) - value.getTime();
  if (elapsed < MINUTE_MS) return "Just now";
  if (elapsed < HOUR_MS) return ago(Math.floor(elapsed / MINUTE_MS), "minute", short);
  if (elapsed < DAY_MS) return ago(Math.floor(elapsed / HOUR_MS), "hour", short);
  const days = Math.floor(elapsed / DAY_MS);
  if (short && days >= 7) return formatShortDate(value, options.timeZone);
  return ago(days, "day", short);
}
