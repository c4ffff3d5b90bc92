// Pages that are not jobs (issue 26): the network's machine pages and the pager tests brigades send.
// They are shown as administrative (never emergency), never pushed or rung, and hidden from members by
// default; admins still see them.
import { extractJobNumber } from "./job-number.js";
import { type AlertType, detectMessageType } from "./message.js";

/**
 * The network's time broadcasts and job time stamps: "@@)&)E51TIMEUPDATE 20261127 134500",
 * "@@ALERT F251201342 KANG1 TIMEUPDATE CKANG ONSCENE 1432HRS". Anywhere in the text, in any case (SPEC 9
 * already keeps every message containing TIMEUPDATE out of job groups).
 */
const TIME_UPDATE = /TIMEUPDATE/i;

/**
 * Test pages as brigades and the network send them: "TEST PAGE", "PAGER TEST PLEASE IGNORE",
 * "CFA D14 - ALL BRIGADES TEST PAGE 1900 HRS", "THIS IS A TEST", a bare "TEST". Only without a job
 * number: a real job's text may mention a test ("ALARC1 ... ALARM TEST FAULT").
 */
const TEST_PAGE = [
  /\bTEST\s*PAGE\b/i,
  /\bPAGER\s+TEST/i,
  /\bTEST\s+MESSAGE\b/i,
  /\bTHIS\s+IS\s+A\s+TEST\b/i,
  /\bPLEASE\s+IGNORE\b/i,
  /^\W*TEST\W*$/i,
];

/** Whether a received text is a machine or test page rather than a job (issue 26; the corpus is in the test). */
export function isMachinePage(rawText: string): boolean {
  if (TIME_UPDATE.test(rawText)) return true;
  if (extractJobNumber(rawText) !== null) return false;
  return TEST_PAGE.some((pattern) => pattern.test(rawText));
}

/** A page's type: its network prefix (SPEC 9), except that a machine or test page is always administrative. */
export function pageType(rawText: string): AlertType {
  return isMachinePage(rawText) ? "administrative" : detectMessageType(rawText);
}
