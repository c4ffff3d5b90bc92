import {
  learnQuietPeriod,
  type ReceiverChange,
  type ReceiverState,
  receiverChange,
  receiverChangeText,
} from "@turnout/domain";
import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { Database } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";
import { alertReceivers, monitorAlarms, pushSubscriptions, receivers, users } from "../../db/schema.js";
import type { LiveEvents } from "../../live/live-events.js";
import { queueDevicePush } from "../../push/queue.js";
import { readAdminNotifications } from "../../shared/admin-notifications.js";
import {
  DELIVERY_ALARMS,
  type DeliveryAlarm,
  deliveryAlarmText,
  deliveryAlarmThreshold,
  deliveryFigures,
} from "../../shared/delivery-alarms.js";
import type { ReceiverRow } from "../../shared/receivers.js";
import { enqueueManySms } from "../../sms/queue.js";
import { PollingLoop } from "../../support/polling-loop.js";
import { type SystemLogEntry, writeSystemLog } from "../../system-log.js";
import { currentState } from "./service.js";

/** The advisory lock that makes one instance at a time run the check (the others skip that round). */
export const CHECKER_LOCK = "turnout.monitor.checker";
/** How often a receiver's learned quiet period is worked out again from its history. */
const LEARN_EVERY_MS = 3600_000;
/** The history a quiet period is learned from. */
const LEARN_DAYS = 14;

/** What one check did: the changes it made (and told admins about), or that another instance had it. */
export type CheckOutcome = {
  ran: boolean;
  receiverChanges: {
    id: number;
    name: string;
    from: ReceiverState;
    to: ReceiverState;
    change: ReceiverChange | null;
  }[];
  alarmChanges: { key: DeliveryAlarm; state: "ok" | "alarm"; value: number }[];
  notified: number;
};

/**
 * The admins told about monitor alarms: those chosen in the admin-notification setting (every active
 * admin when none is chosen), when it is on; with their devices that take push.
 */
async function alarmRecipients(db: Database) {
  const setting = await readAdminNotifications(db);
  if (!setting.enabled) return [];
  const admins = (
    await db
      .select({ id: users.id, phone: users.phone })
      .from(users)
      .where(and(eq(users.isAdmin, true), eq(users.isActive, true)))
  ).filter((a) => setting.adminIds.length === 0 || setting.adminIds.includes(a.id));
  if (admins.length === 0) return [];
  const devices = await db
    .select({ id: pushSubscriptions.id, userId: pushSubscriptions.userId })
    .from(pushSubscriptions)
    .where(
      inArray(
        pushSubscriptions.userId,
        admins.map((a) => a.id),
      ),
    );
  return admins.map((a) => ({ ...a, devices: devices.filter((d) => d.userId === a.id).map((d) => d.id) }));
}

/** Queues one notice to the admins (SMS and push), in the caller's transaction: sent once it commits. */
async function notifyAdmins(
  db: Database,
  notice: { title: string; body: string; tag: string },
): Promise<number> {
  const recipients = await alarmRecipients(db);
  if (recipients.length === 0) return 0;
  await enqueueManySms(
    db,
    recipients.map((a) => ({ to: a.phone, body: notice.body, kind: "notice" as const, userId: a.id })),
  );
  for (const a of recipients) {
    for (const device of a.devices) {
      await queueDevicePush(db, device, {
        title: notice.title,
        body: notice.body,
        tag: notice.tag,
        url: "/admin/receivers",
        alert_id: null,
        type: "notice",
        sent_at: new Date().toISOString(),
      });
    }
  }
  return recipients.length;
}

const levelOf = (change: ReceiverChange): SystemLogEntry["level"] =>
  change === "down" ? "error" : change === "recovered" ? "info" : "warn";

/** Learns the quiet period of receivers without one set whose learned one is due (at most hourly). */
async function learnQuietPeriods(db: Database, rows: ReceiverRow[]): Promise<void> {
  const due = rows.filter(
    (r) =>
      r.quietAfterSeconds === null && (!r.learnedAt || Date.now() - r.learnedAt.getTime() > LEARN_EVERY_MS),
  );
  for (const r of due) {
    const heard = await db
      .select({ at: alertReceivers.firstHeardAt })
      .from(alertReceivers)
      .where(
        and(
          eq(alertReceivers.receiverId, r.id),
          gt(alertReceivers.firstHeardAt, sql`now() - make_interval(days => ${LEARN_DAYS})`),
        ),
      )
      .limit(50_000);
    const learned = learnQuietPeriod(heard.map((h) => h.at.getTime()));
    await db
      .update(receivers)
      .set({ learnedQuietSeconds: learned, learnedAt: new Date() })
      .where(eq(receivers.id, r.id));
    r.learnedQuietSeconds = learned;
  }
}

/**
 * One check of every receiver and of the delivery side: in one transaction, by one instance at a time
 * (a transaction advisory lock that others do not wait for: they skip the round). A receiver whose state
 * changed gets its new state stored, a system log entry, and a notice to the admins who chose to be told
 * (SMS and push, queued in the same transaction, so at most once per change whichever instance runs).
 */
export async function checkMonitor(
  db: Database,
  config: Config["monitor"],
  now: () => number = Date.now,
  /** False when INGEST_API_KEY is not set: the legacy receiver is then not expected to be heard. */
  legacyKeyConfigured = true,
): Promise<CheckOutcome> {
  return db.transaction(async (tx) => {
    const outcome: CheckOutcome = { ran: false, receiverChanges: [], alarmChanges: [], notified: 0 };
    const [lock] = rowsOf<{ locked: boolean }>(
      await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtext(${CHECKER_LOCK})) AS locked`),
    );
    if (!lock?.locked) return outcome;
    outcome.ran = true;
    const rows = await tx.select().from(receivers).where(isNull(receivers.deletedAt)).for("update");
    await learnQuietPeriods(tx, rows);
    for (const r of rows) {
      const from = r.state as ReceiverState;
      const to = r.kind === "legacy" && !legacyKeyConfigured ? "unknown" : currentState(r, now());
      if (to === from) continue;
      const change = receiverChange(from, to);
      await tx
        .update(receivers)
        .set({ state: to, stateSince: new Date(now()) })
        .where(eq(receivers.id, r.id));
      outcome.receiverChanges.push({ id: r.id, name: r.name, from, to, change });
      if (!change) continue;
      const text = receiverChangeText(
        r.name,
        change,
        { lastSeenAt: r.lastSeenAt?.getTime() ?? null, lastMessageAt: r.lastMessageAt?.getTime() ?? null },
        now(),
      );
      await writeSystemLog(tx, {
        level: levelOf(change),
        category: "receivers",
        message: text.replace(/^Turnout: /, ""),
        details: { receiver_id: r.id, from, to },
      });
      outcome.notified += await notifyAdmins(tx, {
        title: change === "recovered" ? "Receiver recovered" : `Receiver ${change}`,
        body: text,
        tag: `receiver-${r.id}`,
      });
    }

    const figures = await deliveryFigures(tx, config.windowMinutes);
    const stored = new Map((await tx.select().from(monitorAlarms)).map((a) => [a.key, a.state]));
    for (const key of DELIVERY_ALARMS) {
      const value = figures[key];
      const state = value >= deliveryAlarmThreshold(key, config) ? "alarm" : "ok";
      const before = stored.get(key) ?? "ok";
      await tx
        .insert(monitorAlarms)
        .values({ key, state, since: new Date(now()), detail: { value } })
        .onConflictDoUpdate({
          target: monitorAlarms.key,
          set: {
            detail: { value },
            state,
            since: sql`CASE WHEN ${monitorAlarms.state} = ${state} THEN ${monitorAlarms.since} ELSE now() END`,
          },
        });
      if (state === before) continue;
      outcome.alarmChanges.push({ key, state, value });
      const text =
        state === "alarm"
          ? `Turnout: ${deliveryAlarmText(key, value, config)}. See the System Monitor.`
          : `Turnout: recovered: ${deliveryAlarmText(key, value, config).replace(/ \(threshold.*\)$/, "")}.`;
      await writeSystemLog(tx, {
        level: state === "alarm" ? "error" : "info",
        category: "delivery",
        message: text.replace(/^Turnout: /, ""),
        details: { alarm: key, value },
      });
      outcome.notified += await notifyAdmins(tx, {
        title: state === "alarm" ? "Delivery alarm" : "Delivery recovered",
        body: text,
        tag: `alarm-${key}`,
      });
    }
    return outcome;
  });
}

/**
 * The periodic check (checkMonitor) on a PollingLoop: every instance runs the loop, one at a time does
 * the check. After a check that queued notices, the SMS and push workers are woken.
 */
export class MonitorChecker {
  private readonly loop: PollingLoop;

  constructor(
    private readonly options: {
      db: Database;
      config: Config["monitor"];
      logger: Logger;
      nudgeSms: () => void;
      nudgePush: () => void;
      /** Whether INGEST_API_KEY is set (the legacy receiver is expected to be heard only then). */
      legacyKeyConfigured: boolean;
      /** The live channel: told once a round that changed receivers' states has committed. */
      live: Pick<LiveEvents, "receiversChanged">;
      onCheck?: (outcome: CheckOutcome) => void;
    },
  ) {
    this.loop = new PollingLoop({
      pollMs: options.config.checkMs,
      logger: options.logger,
      failureMessage: "receiver and delivery check failed",
      cycle: () => this.runOnce(),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** A check now, after any in flight. */
  kick(): void {
    this.loop.kick();
  }

  private async runOnce(): Promise<void> {
    const outcome = await checkMonitor(
      this.options.db,
      this.options.config,
      Date.now,
      this.options.legacyKeyConfigured,
    );
    if (outcome.notified > 0) {
      this.options.nudgeSms();
      this.options.nudgePush();
    }
    for (const c of outcome.receiverChanges)
      this.options.logger.info({ receiverId: c.id, from: c.from, to: c.to }, `receiver ${c.name} is ${c.to}`);
    if (outcome.receiverChanges.length > 0)
      this.options.live.receiversChanged(outcome.receiverChanges.map((c) => c.id));
    this.options.onCheck?.(outcome);
  }
}
