// Web Push to the installed app (issue 15): what a member chooses, and what a notification says.
import { z } from "zod/mini";
import { typePresentation } from "./message.js";

/**
 * Per member and agency: emergencies paged to their units in that agency ("units"; issue 26), every
 * emergency alert of the agency, or none.
 */
export const PUSH_AGENCY_MODES = ["units", "emergency", "none"] as const;
export type PushAgencyMode = (typeof PUSH_AGENCY_MODES)[number];
/** The mode of a member who made no choice for an agency in which they chose no unit. */
export const DEFAULT_PUSH_AGENCY_MODE: PushAgencyMode = "emergency";

/**
 * A member's mode for one agency: their choice, else "units" when they belong to a unit of it (their
 * own brigade's emergencies, not the whole state's), else every emergency of the agency. "units"
 * without a unit in the agency means the agency's emergencies, as if no unit was chosen.
 */
export function effectivePushMode(
  chosen: string | null | undefined,
  hasUnitsInAgency: boolean,
): PushAgencyMode {
  const mode = (PUSH_AGENCY_MODES as readonly string[]).includes(chosen ?? "")
    ? (chosen as PushAgencyMode)
    : null;
  if (mode === "units" || mode === null) return hasUnitsInAgency ? "units" : DEFAULT_PUSH_AGENCY_MODE;
  return mode;
}

/** Per keyword rule: SMS only (as before push existed), push as well as SMS, or push instead of SMS. */
export const RULE_DELIVERIES = ["sms", "sms_and_push", "push"] as const;
export type RuleDelivery = (typeof RULE_DELIVERIES)[number];
export const DEFAULT_RULE_DELIVERY: RuleDelivery = "sms";

export const RULE_DELIVERY_LABELS: Record<RuleDelivery, string> = {
  sms: "SMS",
  sms_and_push: "SMS and push",
  push: "Push only (no SMS)",
};

export const ruleDeliverySchema = z.enum(RULE_DELIVERIES, "delivery must be 'sms', 'sms_and_push' or 'push'");

export function deliversSms(delivery: string): boolean {
  return delivery !== "push";
}

export function deliversPush(delivery: string): boolean {
  return delivery === "push" || delivery === "sms_and_push";
}

/**
 * Whether an alert pushes through an agency's effective mode (effectivePushMode): emergencies only
 * (administrative and machine pages never do), and in "units" only those paged to one of the member's
 * units.
 */
export function agencyModePushes(mode: PushAgencyMode, alertType: string, pagedToMyUnits = false): boolean {
  if (alertType !== "emergency") return false;
  return mode === "emergency" || (mode === "units" && pagedToMyUnits);
}

/** Most characters of the message a notification carries; the whole encrypted payload stays well under 4 KB. */
export const PUSH_BODY_MAX = 1000;
const ELLIPSIS = "\u2026";

/** The JSON a push message carries to the service worker. */
export type PushNotification = {
  title: string;
  body: string;
  /** One per job: a second page of the same job replaces the first notification. */
  tag: string;
  url: string;
  alert_id: number | null;
  type: string;
  sent_at: string;
};

/** The notification for an alert: "Emergency · CFA · Bendigo", the message, a tag per job, its short link. */
export function pushNotificationFor(
  alert: {
    id: number;
    type: string;
    message: string;
    area?: string | null;
    jobNumber?: string | null;
    sentAt: Date;
  },
  agency: string,
): PushNotification {
  const title = [typePresentation(alert.type).label, agency.trim(), alert.area?.trim()]
    .filter((part) => part)
    .join(" \u00b7 ");
  const message = alert.message.replace(/\s+/g, " ").trim();
  const body =
    message.length > PUSH_BODY_MAX ? `${message.slice(0, PUSH_BODY_MAX - 1).trimEnd()}${ELLIPSIS}` : message;
  return {
    title,
    body,
    tag: alert.jobNumber ? `job-${alert.jobNumber}` : `alert-${alert.id}`,
    url: `/j/${alert.id}`,
    alert_id: alert.id,
    type: alert.type,
    sent_at: alert.sentAt.toISOString(),
  };
}

/** The notification 'Send a test notification' sends to one device. */
export function testPushNotification(now: Date): PushNotification {
  return {
    title: "Turnout test notification",
    body: "Push notifications work on this device.",
    tag: "turnout-test",
    url: "/",
    alert_id: null,
    type: "standard",
    sent_at: now.toISOString(),
  };
}

/** Push services a subscription may point at (SSRF guard): the browsers' own, by host suffix. */
export const KNOWN_PUSH_SERVICE_HOSTS = [
  "fcm.googleapis.com",
  "android.googleapis.com",
  ".push.services.mozilla.com",
  ".push.apple.com",
  ".notify.windows.com",
] as const;

/** Whether `host` is one of the known push services, or one of `extraHosts` (exact names). */
export function isAllowedPushHost(host: string, extraHosts: readonly string[] = []): boolean {
  const h = host.toLowerCase();
  if (extraHosts.some((x) => x.toLowerCase() === h)) return true;
  return KNOWN_PUSH_SERVICE_HOSTS.some((known) => (known.startsWith(".") ? h.endsWith(known) : h === known));
}

const base64Url = (what: string, min: number, max: number) =>
  z
    .string(`${what} is required`)
    .check(
      z.minLength(min, `${what} is too short`),
      z.maxLength(max, `${what} is too long`),
      z.regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`),
    );

/** A subscription as the browser's PushSubscription.toJSON() gives it. */
export const pushSubscriptionSchema = z.object({
  endpoint: z
    .string("endpoint is required")
    .check(z.maxLength(2048, "endpoint is too long"), z.url("endpoint must be a URL")),
  keys: z.object(
    {
      // An uncompressed P-256 point (65 bytes: 87 characters) and a 16-byte secret (22 characters).
      p256dh: base64Url("keys.p256dh", 80, 100),
      auth: base64Url("keys.auth", 16, 32),
    },
    "keys is required",
  ),
  expiration_time: z.optional(z.nullable(z.number())),
});
export type PushSubscriptionInput = z.infer<typeof pushSubscriptionSchema>;
