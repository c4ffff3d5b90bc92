// The delivery side's alarms (issue 33): SMS provider failures, push failures and the keyword-rule
// backlog. Raised and cleared by the receivers module's checker, read by the health card and /metrics.
import { eq, sql } from "drizzle-orm";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import { rowsOf } from "../db/rows.js";
import { monitorAlarms } from "../db/schema.js";

/** The delivery side's alarms (issue 33). */
export const DELIVERY_ALARMS = ["sms_failures", "push_failures", "rule_backlog"] as const;
export type DeliveryAlarm = (typeof DELIVERY_ALARMS)[number];

export type DeliveryFigures = Record<DeliveryAlarm, number>;

/** The text of a delivery alarm for the health card, SMS and log. */
export function deliveryAlarmText(key: DeliveryAlarm, value: number, config: Config["monitor"]): string {
  const window = `${config.windowMinutes} min`;
  switch (key) {
    case "sms_failures":
      return `SMS provider failures: ${value} in the last ${window} (threshold ${config.smsFailures})`;
    case "push_failures":
      return `Push failures: ${value} in the last ${window} (threshold ${config.pushFailures})`;
    case "rule_backlog":
      return `Keyword-rule queue backlog: ${value} alerts waiting (threshold ${config.ruleBacklog})`;
  }
}

/** The delivery side's figures now (all instances: they are read from the database). */
export async function deliveryFigures(db: Database, windowMinutes: number): Promise<DeliveryFigures> {
  const [row] = rowsOf<{ sms: number; push: number; backlog: number }>(
    await db.execute(sql`
      SELECT
        (SELECT count(*)::int FROM sms_queue
          WHERE last_error IS NOT NULL AND updated_at > now() - make_interval(mins => ${windowMinutes})) AS sms,
        (SELECT count(*)::int FROM push_deliveries
          WHERE last_error IS NOT NULL AND created_at > now() - make_interval(mins => ${windowMinutes})) AS push,
        (SELECT count(*)::int FROM rule_match_queue) AS backlog`),
  );
  return { sms_failures: row!.sms, push_failures: row!.push, rule_backlog: row!.backlog };
}

/** The figure at which a delivery alarm is raised (MONITOR_* settings). */
export function deliveryAlarmThreshold(key: DeliveryAlarm, config: Config["monitor"]): number {
  return key === "sms_failures"
    ? config.smsFailures
    : key === "push_failures"
      ? config.pushFailures
      : config.ruleBacklog;
}

/** The delivery alarms raised now, as the health card lists them. */
export async function raisedDeliveryAlarms(db: Database, config: Config["monitor"]): Promise<string[]> {
  const rows = await db.select().from(monitorAlarms).where(eq(monitorAlarms.state, "alarm"));
  return rows.map((r) =>
    deliveryAlarmText(r.key as DeliveryAlarm, Number((r.detail as { value?: number })?.value ?? 0), config),
  );
}
