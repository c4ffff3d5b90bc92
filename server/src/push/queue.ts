// Queues push messages (an alert's fan-out to members' devices, a test notification); worker.ts sends them.
import {
  agencyModePushes,
  effectivePushMode,
  type PushNotification,
  pushNotificationFor,
} from "@turnout/domain";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import {
  agencies,
  alertRecipients,
  alerts,
  deviceSessions,
  pushAgencyModes,
  pushDeliveries,
  pushSubscriptions,
  userAgencies,
  users,
} from "../db/schema.js";
import { unitCapcodesByMember } from "../shared/units.js";

/** The capcodes each alert was paged to. */
async function recipientCapcodes(tx: Database, alertIds: number[]): Promise<Map<number, Set<number>>> {
  const byAlert = new Map<number, Set<number>>();
  if (alertIds.length === 0) return byAlert;
  const rows = await tx
    .select({ alertId: alertRecipients.alertId, capcodeId: alertRecipients.capcodeId })
    .from(alertRecipients)
    .where(inArray(alertRecipients.alertId, alertIds));
  for (const r of rows) byAlert.set(r.alertId, (byAlert.get(r.alertId) ?? new Set()).add(r.capcodeId));
  return byAlert;
}

/** The deliveries one alert needs: a user and the agency (code) the notification names. */
type Wanted = { userId: number; agencyCode: string };

/**
 * Queues the push messages of these alerts, inside the caller's transaction (the rule matcher's, the one
 * that takes the alerts off rule_match_queue, so an alert is fanned out once whatever crashes): to every
 * live device of members whose agency mode takes the alert (domain effectivePushMode: a member of a
 * unit of the agency hears their units' emergencies by default; issue 26), and of `ruleUsers` (keyword
 * rules asking for push). The unique (alert, subscription) index keeps it to one message per device, also when an
 * alert is queued again because it was paged to more agencies later. Resolves to the rows queued.
 */
export async function queueAlertPushes(
  tx: Database,
  alertIds: readonly number[],
  ruleUsers: readonly { alertId: number; userId: number; agencyId: number }[],
): Promise<number> {
  if (alertIds.length === 0) return 0;
  const rows = await tx
    .select({
      id: alerts.id,
      type: alerts.type,
      message: alerts.message,
      area: alerts.area,
      jobNumber: alerts.jobNumber,
      sentAt: alerts.sentAt,
      agencyIds: alerts.agencyIds,
    })
    .from(alerts)
    .where(inArray(alerts.id, [...alertIds]));
  const emergencies = rows.filter((r) => r.type === "emergency");
  const agencyIds = [
    ...new Set([...emergencies.flatMap((r) => r.agencyIds), ...ruleUsers.map((r) => r.agencyId)]),
  ];
  if (agencyIds.length === 0) return 0;
  const codes = new Map(
    (
      await tx
        .select({ id: agencies.id, code: agencies.code })
        .from(agencies)
        .where(inArray(agencies.id, agencyIds))
    ).map((a) => [a.id, a.code]),
  );

  const wanted = new Map<number, Map<number, Wanted>>();
  const want = (alertId: number, w: Wanted) => {
    const byUser = wanted.get(alertId) ?? new Map<number, Wanted>();
    if (!byUser.has(w.userId)) byUser.set(w.userId, w);
    wanted.set(alertId, byUser);
  };
  if (emergencies.length > 0) {
    // Members of the agencies paged who have a live device: their mode for that agency decides.
    const members = await tx
      .select({ userId: userAgencies.userId, agencyId: userAgencies.agencyId, mode: pushAgencyModes.mode })
      .from(userAgencies)
      .innerJoin(users, and(eq(users.id, userAgencies.userId), eq(users.isActive, true)))
      .leftJoin(
        pushAgencyModes,
        and(
          eq(pushAgencyModes.userId, userAgencies.userId),
          eq(pushAgencyModes.agencyId, userAgencies.agencyId),
        ),
      )
      .where(
        and(
          inArray(userAgencies.agencyId, [...new Set(emergencies.flatMap((r) => r.agencyIds))]),
          sql`exists (select 1 from ${pushSubscriptions} where ${pushSubscriptions.userId} = ${userAgencies.userId})`,
        ),
      );
    const unitsOf = await unitCapcodesByMember(
      tx,
      members.map((m) => m.userId),
    );
    const pagedCapcodes = await recipientCapcodes(
      tx,
      emergencies.map((r) => r.id),
    );
    for (const alert of emergencies) {
      const paged = pagedCapcodes.get(alert.id) ?? new Set<number>();
      for (const m of members) {
        if (!alert.agencyIds.includes(m.agencyId)) continue;
        const mine = unitsOf.get(m.userId)?.get(m.agencyId);
        const mode = effectivePushMode(m.mode, mine !== undefined);
        const toMyUnits = mine !== undefined && [...mine].some((c) => paged.has(c));
        if (agencyModePushes(mode, alert.type, toMyUnits))
          want(alert.id, { userId: m.userId, agencyCode: codes.get(m.agencyId) ?? "" });
      }
    }
  }
  for (const r of ruleUsers) want(r.alertId, { userId: r.userId, agencyCode: codes.get(r.agencyId) ?? "" });
  if (wanted.size === 0) return 0;

  const userIds = [...new Set([...wanted.values()].flatMap((m) => [...m.keys()]))];
  const devices = await tx
    .select({ id: pushSubscriptions.id, userId: pushSubscriptions.userId })
    .from(pushSubscriptions)
    .innerJoin(deviceSessions, eq(deviceSessions.id, pushSubscriptions.sessionId))
    .where(
      and(
        inArray(pushSubscriptions.userId, userIds),
        sql`${deviceSessions.endedAt} is null and ${deviceSessions.expiresAt} > now()`,
      ),
    );
  const values: (typeof pushDeliveries.$inferInsert)[] = [];
  for (const alert of rows) {
    const byUser = wanted.get(alert.id);
    if (!byUser) continue;
    for (const device of devices) {
      const w = byUser.get(device.userId);
      if (!w) continue;
      const notification = pushNotificationFor(alert, w.agencyCode);
      values.push({
        alertId: alert.id,
        subscriptionId: device.id,
        payload: JSON.stringify(notification),
        urgency: alert.type === "emergency" ? "high" : "normal",
        topic: topicOf(notification),
      });
    }
  }
  if (values.length === 0) return 0;
  const inserted = await tx
    .insert(pushDeliveries)
    .values(values)
    .onConflictDoNothing()
    .returning({ id: pushDeliveries.id });
  return inserted.length;
}

/** Queues one notification to one device (the test notification). */
export async function queueDevicePush(db: Database, subscriptionId: number, notification: PushNotification) {
  await db.insert(pushDeliveries).values({
    subscriptionId,
    payload: JSON.stringify(notification),
    urgency: "high",
    topic: topicOf(notification),
  });
}

/**
 * The Topic header (RFC 8030 5.4: up to 32 base64url characters): a push service holding an undelivered
 * message for an offline device replaces it with a newer one of the same job.
 */
function topicOf(n: PushNotification): string {
  return n.tag.replace(/[^A-Za-z0-9_-]/g, "_").slice(-32);
}
