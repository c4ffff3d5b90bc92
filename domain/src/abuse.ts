import { retryAfterMinutes } from "./retry.js";

/**
 * The rules that keep sign-in and its SMS from being abused by strangers (issue 27): the SMS budgets
 * every unauthenticated send must fit, and when a phone or the whole service counts as under attack
 * (then anonymous requests need a proof of work). The server keeps the counts; these decide.
 */

/** One SMS budget: the service's per hour and day, strangers' per hour and day, a number block's, a phone's. */
export type SmsBudgetName =
  | "global_hour"
  | "global_day"
  | "unauth_hour"
  | "unauth_day"
  | "prefix_hour"
  | "phone_day";

/** Counts that include the SMS about to be sent. */
export type SmsBudgetCounts = Record<SmsBudgetName, number>;
/** The most each budget allows. */
export type SmsBudgetLimits = Record<SmsBudgetName, number>;

/** Budgets in the order they are checked: the widest first, so the alarm names the real cause. */
export const SMS_BUDGET_ORDER: readonly SmsBudgetName[] = [
  "global_day",
  "global_hour",
  "unauth_day",
  "unauth_hour",
  "prefix_hour",
  "phone_day",
];

/** Budgets that cover the whole service: hitting one pauses every stranger's SMS. */
export const SERVICE_SMS_BUDGETS: ReadonlySet<SmsBudgetName> = new Set([
  "global_day",
  "global_hour",
  "unauth_day",
  "unauth_hour",
]);

/** The first budget an unauthenticated SMS would overrun, or null when it fits them all. */
export function exceededSmsBudget(counts: SmsBudgetCounts, limits: SmsBudgetLimits): SmsBudgetName | null {
  return SMS_BUDGET_ORDER.find((name) => counts[name] > limits[name]) ?? null;
}

/** What a budget is called in alarms and on the System Monitor. */
export const SMS_BUDGET_LABELS: Record<SmsBudgetName, string> = {
  global_hour: "the hourly SMS budget",
  global_day: "the daily SMS budget",
  unauth_hour: "the hourly budget for sign-in and registration SMS",
  unauth_day: "the daily budget for sign-in and registration SMS",
  prefix_hour: "the hourly budget for one block of numbers",
  phone_day: "the daily budget for one phone",
};

const OWNER_HINT = "A device you have signed in on before can still sign in.";

/**
 * What a stranger is told when an SMS budget stops their code or registration: when to come back,
 * and that a device signed in before is not affected.
 */
export function smsBudgetMessage(name: SmsBudgetName, retryAfterSeconds: number): string {
  const minutes = retryAfterMinutes(retryAfterSeconds);
  const wait = `Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  if (name === "phone_day") {
    return `This number has been sent as many codes as it may get today. ${wait} ${OWNER_HINT}`;
  }
  if (name === "prefix_hour") {
    return `Too many codes have been sent to numbers like this one. ${wait} ${OWNER_HINT}`;
  }
  return `Sign-in codes are paused for a while because of unusually many requests. ${wait} ${OWNER_HINT}`;
}

/** The System Monitor's line for a budget reached within the last hour. */
export function smsBudgetHealthIssue(name: SmsBudgetName): string {
  return `SMS budget reached: ${SMS_BUDGET_LABELS[name]} (sign-in codes for new devices are held back)`;
}

/** What the server has counted about one phone and about the whole service. */
export type AttackSignals = {
  /** Code requests for the phone from strangers in the current window. */
  phoneRequests: number;
  /** Wrong codes for the phone in the last day. */
  phoneFailures: number;
  /** The phone is past its daily ceiling of wrong codes. */
  phoneGuarded: boolean;
  /** Unauthenticated SMS sent by the service in the current hour. */
  serviceUnauthSms: number;
  /** Wrong codes for any phone in the current window. */
  serviceFailures: number;
  /** A service-wide SMS budget was reached within the hour. */
  serviceBudgetReached: boolean;
};

/** From how many of each signal on a phone or the service counts as under attack. */
export type AttackThresholds = {
  phoneRequests: number;
  phoneFailures: number;
  serviceUnauthSms: number;
  serviceFailures: number;
};

/**
 * Whether the phone, or the service as a whole, is under attack: then anonymous code requests,
 * registrations and guesses need a solved proof of work. A device signed in before never does.
 */
export function underAttack(s: AttackSignals, t: AttackThresholds): { phone: boolean; service: boolean } {
  return {
    phone: s.phoneGuarded || s.phoneRequests >= t.phoneRequests || s.phoneFailures >= t.phoneFailures,
    service:
      s.serviceBudgetReached ||
      s.serviceUnauthSms >= t.serviceUnauthSms ||
      s.serviceFailures >= t.serviceFailures,
  };
}
