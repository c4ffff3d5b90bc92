import { DEFAULT_RETRY_AFTER_SECONDS } from "./constants.js";

/** Tells whether a retry-after value is a usable positive number of seconds. */
function isPositive(seconds: number | null | undefined): seconds is number {
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0;
}

/** Minutes to wait, rounded up; a missing, non-positive or invalid value means 900 s (15 minutes). */
export function retryAfterMinutes(retryAfterSeconds?: number | null): number {
  return Math.ceil((isPositive(retryAfterSeconds) ? retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS) / 60);
}

/** "1 minute" or "N minutes". */
export function minutesWording(n: number): string {
  return n === 1 ? "1 minute" : `${n} minutes`;
}

/** The registration 429 message: wait N minutes (retryAfter / 60 rounded up), or "a few" without a value. */
export function registerRateLimitMessage(retryAfterSeconds?: number | null): string {
  const wait = isPositive(retryAfterSeconds)
    ? minutesWording(Math.ceil(retryAfterSeconds / 60))
    : "a few minutes";
  return `Too many attempts. Please wait ${wait} before trying again.`;
}

/** Seconds to wait from a Retry-After header (delta-seconds or HTTP-date); null when absent or unreadable. */
export function parseRetryAfterHeader(value: string | null | undefined, nowMs: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP-date always names the day and month; this keeps Date.parse from reading "-5" as a year.
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
