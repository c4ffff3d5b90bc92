import type { AlertType } from "./message.js";

// Whole tokens only: F + 6 or more digits; E + 4..12 digits (<= 13 chars); J or S + 4..12 digits (5..13 chars).
const JOB_NUMBER = /\b(?:F\d{6,}|E\d{4,12}|[JS]\d{4,12})\b/;

/** Finds the first job number in the text (SPEC 9 patterns, whole tokens only); null when there is none. */
export function extractJobNumber(text: string): string | null {
  return JOB_NUMBER.exec(text)?.[0] ?? null;
}

/** Tells whether a message may join a job group: not a TIMEUPDATE and not administrative. */
export function isGroupable(text: string, type: AlertType): boolean {
  return type !== "administrative" && !/TIMEUPDATE/i.test(text);
}

/** The key that groups messages of one job: its job number when groupable, else null. */
export function groupKeyFor(text: string, type: AlertType): string | null {
  return isGroupable(text, type) ? extractJobNumber(text) : null;
}
