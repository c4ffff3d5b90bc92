import { typePresentation } from "./message.js";
import { PAGER_CLOCK_SKEW_MS } from "./pager-time.js";
import { formatDateTime } from "./time.js";

/** Characters of the GSM 03.38 default alphabet: one septet each. */
const GSM7_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
/** Characters of the GSM 03.38 extension table: an escape plus one septet, so two each. */
const GSM7_EXTENSION = "^{}\\[~]|€\f";

const GSM7_BASIC_SET: ReadonlySet<string> = new Set(GSM7_BASIC);
const GSM7_EXTENSION_SET: ReadonlySet<string> = new Set(GSM7_EXTENSION);

/** Septets in two concatenated GSM-7 segments (153 each after the concatenation header). */
export const SMS_GSM7_TWO_SEGMENTS = 306;
/** UTF-16 code units in two concatenated UCS-2 segments (67 each after the concatenation header). */
export const SMS_UCS2_TWO_SEGMENTS = 134;

const ELLIPSIS = "...";

/** How a text travels as SMS: GSM-7 when every character is in the GSM alphabet, otherwise UCS-2. */
export type SmsEncoding = "GSM-7" | "UCS-2";

/** The encoding a text needs and its length in that encoding (septets for GSM-7, code units for UCS-2). */
export function smsLength(text: string): { encoding: SmsEncoding; units: number } {
  let septets = 0;
  for (const ch of text) {
    if (GSM7_BASIC_SET.has(ch)) septets += 1;
    else if (GSM7_EXTENSION_SET.has(ch)) septets += 2;
    else return { encoding: "UCS-2", units: text.length };
  }
  return { encoding: "GSM-7", units: septets };
}

/** How many SMS segments a text takes (160/153 septets in GSM-7, 70/67 code units in UCS-2). */
export function smsSegmentCount(text: string): number {
  const { encoding, units } = smsLength(text);
  if (units === 0) return 1;
  const [single, part] = encoding === "GSM-7" ? [160, 153] : [70, 67];
  return units <= single ? 1 : Math.ceil(units / part);
}

/** True when the text fits in two segments in the encoding it needs. */
export function fitsTwoSegments(text: string): boolean {
  const { encoding, units } = smsLength(text);
  return units <= (encoding === "GSM-7" ? SMS_GSM7_TWO_SEGMENTS : SMS_UCS2_TWO_SEGMENTS);
}

/**
 * `head + body + tail` within two segments: the body (and only the body) is shortened, ending in '...',
 * when the whole does not fit. Head and tail are kept whole; they are expected to be short.
 */
export function fitSms(head: string, body: string, tail = ""): string {
  const whole = head + body + tail;
  if (fitsTwoSegments(whole)) return whole;
  // Longest prefix of the body (whole characters, never half a surrogate pair) that still fits.
  const chars = Array.from(body);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fitsTwoSegments(head + chars.slice(0, mid).join("").trimEnd() + ELLIPSIS + tail)) lo = mid;
    else hi = mid - 1;
  }
  return head + chars.slice(0, lo).join("").trimEnd() + ELLIPSIS + tail;
}

/** What a keyword-rule SMS reports about one alert. */
export type RuleAlertSmsInput = {
  /** The alert's type (emergency, non-emergency, administrative, standard; 'admin' accepted). */
  type: string;
  /** A short agency label, e.g. its code 'CFA'. */
  agency: string;
  /** The displayed text (network prefix already stripped). */
  message: string;
  /** The public URL of the app, or null when unknown: then the SMS has no link. */
  publicUrl: string | null;
  alertId: number;
  /** When it was paged (the time the feed shows) and when Turnout received it: a late page says when. */
  pagedAt?: Date;
  receivedAt?: Date;
  /** The zone the paged time is written in (the runtime's when absent). */
  timeZone?: string;
};

/** The short link to a job on the public site: `${publicUrl}/j/${id}`, or null without a public URL. */
export function jobLink(publicUrl: string | null, alertId: number): string | null {
  if (!publicUrl) return null;
  return `${publicUrl.replace(/\/+$/, "")}/j/${alertId}`;
}

/**
 * The SMS a matching keyword rule sends: '<TYPE> <agency>: <message> <link>', whitespace runs in the
 * message collapsed; a page received later than it was paged (replayed from a receiver's spool) reads
 * '<TYPE> <agency> (paged 2:05 pm, 22/11/2026): ...', so nobody mistakes it for a new job.
 * The message is shortened with '...' so the whole stays within two segments (306
 * GSM-7 characters, or 134 when a character outside the GSM alphabet forces UCS-2).
 */
export function ruleAlertSmsText(input: RuleAlertSmsInput): string {
  const late =
    input.pagedAt !== undefined &&
    input.receivedAt !== undefined &&
    input.receivedAt.getTime() - input.pagedAt.getTime() > PAGER_CLOCK_SKEW_MS;
  const paged = late ? ` (paged ${formatDateTime(input.pagedAt!, input.timeZone)})` : "";
  const head = `${typePresentation(input.type).key} ${input.agency.trim()}${paged}: `;
  const link = jobLink(input.publicUrl, input.alertId);
  const message = input.message.replace(/\s+/g, " ").trim();
  return fitSms(head, message, link ? ` ${link}` : "");
}

/** A review decision the rule's owner hears about. */
export type RuleReviewDecision = "approved" | "rejected" | "suspended";

/** The SMS telling a user what an admin decided about their alert rule, within two segments. */
export function ruleReviewSmsText(input: {
  ruleName: string;
  decision: RuleReviewDecision;
  reason?: string | null;
}): string {
  const name = input.ruleName.replace(/\s+/g, " ").trim();
  const quoted = name.length > 40 ? `${name.slice(0, 37).trimEnd()}${ELLIPSIS}` : name;
  switch (input.decision) {
    case "approved":
      return fitSms(
        `Turnout: your alert rule "${quoted}" was approved. `,
        "You will get an SMS when a message contains all of its keywords.",
      );
    case "rejected": {
      const reason = (input.reason ?? "").replace(/\s+/g, " ").trim();
      return fitSms(
        `Turnout: your alert rule "${quoted}" was not approved. `,
        reason ? `Reason: ${reason}` : "Open My Alerts for details.",
      );
    }
    case "suspended":
      return fitSms(
        `Turnout: your alert rule "${quoted}" was suspended by an administrator. `,
        "It sends no SMS until it is approved again.",
      );
  }
}

/**
 * The SMS an account an admin added receives (issue 26): who added it and how to sign in (the public
 * address when known, this phone number, the code that will be texted), within one or two segments.
 */
export function welcomeSmsText(input: { firstName: string; publicUrl: string | null }): string {
  const name = input.firstName.replace(/\s+/g, " ").trim();
  const greeting = name ? `Hi ${name.slice(0, 30).trimEnd()}, ` : "";
  const where = input.publicUrl
    ? `at ${input.publicUrl.replace(/\/+$/, "")}`
    : "to Turnout (ask your administrator for its address)";
  return fitSms(
    `Turnout: ${greeting}an administrator has added you. `,
    `Sign in ${where} with this phone number; we will text you a 6-digit code.`,
  );
}
