import {
  exceededSmsBudget,
  maskPhone,
  SMS_BUDGET_LABELS,
  SMS_BUDGET_ORDER,
  type SmsBudgetLimits,
  type SmsBudgetName,
  smsBudgetMessage,
  smsPrefixOf,
} from "@turnout/domain";
import { and, eq } from "drizzle-orm";
import type { Cache } from "../../cache/cache.js";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { pushSubscriptions, users } from "../../db/schema.js";
import { AppError } from "../../errors.js";
import { queueDevicePush } from "../../push/queue.js";
import { enqueueSms } from "../../sms/queue.js";
import { recordSecurityEvent } from "./events.js";
import { forgetRateLimit, guardedRequestsKey, phoneRequestsKey } from "./limits.js";
import { getSecuritySettings, type SecuritySettings } from "./settings.js";

/**
 * The service's SMS spend, bounded and watched (issue 27). Counters live in the cache store (shared by
 * every instance; fixed windows that start at their first count):
 * - every SMS the worker sends counts in the service's hour and day;
 * - every SMS a stranger can cause (a sign-in code for a device not signed in before, an activation
 *   code at registration) is reserved before it is queued against the strangers' hour and day, its
 *   number block's hour and its phone's day, and refused when any of these or the service's own budget
 *   is full. Signed-in features (keyword alerts, notices) and devices signed in before are never held
 *   back; they count, and raise the alarm.
 * Reaching a budget records a critical security event (once per budget per hour), shows on the System
 * Monitor for the hour, and tells the admins by SMS and push (at most once an hour).
 */

const HOUR = 3_600;
const DAY = 86_400;

const keys = {
  sentHour: "sms:sent:hour",
  sentDay: "sms:sent:day",
  strangerHour: "sms:stranger:hour",
  strangerDay: "sms:stranger:day",
  prefix: (prefix: string) => `sms:prefix:${prefix}`,
  phone: (phone: string) => `sms:phone:${phone}`,
  alarm: (name: SmsBudgetName) => `sms:alarm:${name}`,
  notice: "sms:admin-notice",
};

type BudgetContext = Pick<ServiceContext, "db" | "cache" | "nudgeSms">;

/** The budgets as the security settings set them. */
export function smsBudgetLimits(s: SecuritySettings): SmsBudgetLimits {
  return {
    global_hour: s.sms_budget_per_hour,
    global_day: s.sms_budget_per_day,
    unauth_hour: s.sms_unauth_budget_per_hour,
    unauth_day: s.sms_unauth_budget_per_day,
    prefix_hour: s.sms_prefix_budget_per_hour,
    phone_day: s.sms_phone_budget_per_day,
  };
}

async function countOf(cache: Cache, key: string): Promise<number> {
  const value = Number(await cache.get(key));
  return Number.isFinite(value) ? value : 0;
}

/**
 * Reserves one SMS a stranger causes to `phone`. Throws 429 `sms_budget_exceeded` (with retryAfter)
 * when it would overrun a budget, after raising the alarm. Every reservation counts, refused ones too,
 * so a flood keeps the budget closed rather than reopening it.
 */
export async function reserveStrangerSms(
  ctx: BudgetContext,
  phone: string,
  settings: SecuritySettings,
): Promise<void> {
  const [strangerHour, strangerDay, prefix, perPhone] = [
    await ctx.cache.increment(keys.strangerHour, HOUR),
    await ctx.cache.increment(keys.strangerDay, DAY),
    await ctx.cache.increment(keys.prefix(smsPrefixOf(phone)), HOUR),
    await ctx.cache.increment(keys.phone(phone), DAY),
  ];
  const counts = {
    global_hour: (await countOf(ctx.cache, keys.sentHour)) + 1,
    global_day: (await countOf(ctx.cache, keys.sentDay)) + 1,
    unauth_hour: strangerHour.count,
    unauth_day: strangerDay.count,
    prefix_hour: prefix.count,
    phone_day: perPhone.count,
  };
  const limits = smsBudgetLimits(settings);
  const over = exceededSmsBudget(counts, limits);
  if (!over) return;
  const retryAfter = {
    global_hour: HOUR,
    global_day: DAY,
    unauth_hour: strangerHour.ttlSeconds,
    unauth_day: strangerDay.ttlSeconds,
    prefix_hour: prefix.ttlSeconds,
    phone_day: perPhone.ttlSeconds,
  }[over];
  await raiseSmsBudgetAlarm(ctx, over, {
    limit: limits[over],
    ...(over === "phone_day" ? { phone: maskPhone(phone) } : {}),
    ...(over === "prefix_hour" ? { prefix: maskPhone(`${smsPrefixOf(phone)}0000`) } : {}),
  });
  throw new AppError(429, "sms_budget_exceeded", smsBudgetMessage(over, retryAfter), {
    retryAfter: Math.max(1, retryAfter),
  });
}

/**
 * Counts one SMS the worker has sent in the service's hour and day, and raises the alarm when that
 * passes the service's budget (the SMS went out all the same: it was a signed-in feature's, or a
 * stranger's reserved earlier).
 */
export async function countSentSms(ctx: BudgetContext): Promise<void> {
  const hour = await ctx.cache.increment(keys.sentHour, HOUR);
  const day = await ctx.cache.increment(keys.sentDay, DAY);
  const settings = await getSecuritySettings(ctx.db);
  if (day.count > settings.sms_budget_per_day) {
    await raiseSmsBudgetAlarm(ctx, "global_day", { limit: settings.sms_budget_per_day });
  } else if (hour.count > settings.sms_budget_per_hour) {
    await raiseSmsBudgetAlarm(ctx, "global_hour", { limit: settings.sms_budget_per_hour });
  }
}

/** Forgets a phone's daily count of strangers' SMS (the operator's recovery of that phone). */
export async function clearPhoneSmsBudget(cache: Cache, phone: string): Promise<void> {
  await cache.del(keys.phone(phone));
  await forgetRateLimit(cache, phoneRequestsKey(phone));
  await forgetRateLimit(cache, guardedRequestsKey(phone));
}

/** How many SMS strangers caused in the current hour (a proof-of-work signal). */
export function strangerSmsThisHour(cache: Cache): Promise<number> {
  return countOf(cache, keys.strangerHour);
}

/** The budgets reached within the last hour, for the System Monitor (and the proof-of-work signal). */
export async function smsBudgetsReached(cache: Cache): Promise<SmsBudgetName[]> {
  const reached: SmsBudgetName[] = [];
  for (const name of SMS_BUDGET_ORDER) if (await cache.get(keys.alarm(name))) reached.push(name);
  return reached;
}

/**
 * Records the critical event for a budget reached (once per budget per hour) and tells every active
 * admin by SMS and on their devices with notifications on (at most once an hour for all budgets).
 */
async function raiseSmsBudgetAlarm(
  ctx: BudgetContext,
  name: SmsBudgetName,
  details: Record<string, unknown>,
): Promise<void> {
  const { count } = await ctx.cache.increment(keys.alarm(name), HOUR);
  if (count !== 1) return;
  await recordSecurityEvent(ctx.db, {
    type: "sms_budget_reached",
    severity: "critical",
    details: { budget: name, label: SMS_BUDGET_LABELS[name], ...details },
  });
  const notice = await ctx.cache.increment(keys.notice, HOUR);
  if (notice.count !== 1) return;
  await notifyAdmins(ctx.db, name);
  ctx.nudgeSms();
}

async function notifyAdmins(db: Database, name: SmsBudgetName): Promise<void> {
  const body = `Turnout: ${SMS_BUDGET_LABELS[name]} was reached. Sign-in SMS for devices not signed in before are held back for now. See the System Monitor.`;
  const admins = await db
    .select({ id: users.id, phone: users.phone })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.isActive, true)));
  for (const admin of admins) {
    await enqueueSms(db, { to: admin.phone, body, kind: "notice", userId: admin.id });
    const devices = await db
      .select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, admin.id));
    for (const device of devices) {
      await queueDevicePush(db, device.id, {
        title: "Turnout: SMS budget reached",
        body,
        tag: "sms-budget",
        url: "/admin/system",
        alert_id: null,
        type: "notice",
        sent_at: new Date().toISOString(),
      });
    }
  }
}
