import { deliversPush, deliversSms, ruleAlertSmsText, ruleFiresFor } from "@turnout/domain";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, alerts, ruleTriggers, userAgencies, userAlertRules, users } from "../../db/schema.js";
import { recipientsByAlert } from "../../shared/alerts/recipients.js";
import { unitCapcodesByMember } from "../../shared/units.js";
import { enqueueManySms } from "../../sms/queue.js";
import type { IndexedRule, RuleIndex } from "./rule-index.js";

/** Alerts older than this when the matcher reaches them (a long outage) are dequeued without SMS. */
export const MATCH_MAX_ALERT_AGE_MS = 6 * 3_600_000;

/** One rule firing for one alert, as recorded. */
export type FiredTrigger = {
  triggerId: number;
  ruleId: number;
  alertId: number;
  userId: number;
  /** The agency of the user's the rule fired for (the one the SMS names). */
  agencyId: number;
  smsId: number | null;
  /** The rule asks for push (issue 15): the push fan-out takes it from here. */
  push: boolean;
};

export type MatchOptions = {
  publicUrl: string | null;
  maxAlertAgeMs?: number;
  /** Told how many of the alerts were skipped for being older than maxAlertAgeMs (or gone). */
  onSkipped?: (count: number) => void;
};

/**
 * The approved, active rules: what the index is built from. Owners are not filtered here (an account
 * switched off and on again must not wait for a rebuild); fireRules checks them on every match.
 */
export async function loadIndexedRules(db: Database): Promise<IndexedRule[]> {
  return db
    .select({
      id: userAlertRules.id,
      keywords: userAlertRules.keywords,
      agencies: userAlertRules.agencies,
      priorityLevels: userAlertRules.priorityLevels,
    })
    .from(userAlertRules)
    .where(and(eq(userAlertRules.status, "approved"), eq(userAlertRules.isActive, true)));
}

/** Displayed text of the newest alerts: the index uses them to learn which keywords are common. */
export async function recentAlertTexts(db: Database, limit = 1000): Promise<string[]> {
  const rows = await db.execute<{ message: string }>(
    sql`SELECT message FROM alerts ORDER BY id DESC LIMIT ${limit}`,
  );
  return (rows as unknown as { rows: { message: string }[] }).rows.map((r) => r.message);
}

/**
 * Takes up to `limit` alerts off the rule-match queue inside the caller's transaction (rows another
 * transaction holds are skipped). They stay taken only if that transaction commits.
 */
export async function claimQueuedAlerts(tx: Database, limit: number): Promise<number[]> {
  const result = (await tx.execute(sql`
    with taken as materialized (
      select alert_id from rule_match_queue
      order by queued_at, alert_id
      limit ${limit}
      for update skip locked
    )
    delete from rule_match_queue q using taken
    where q.alert_id = taken.alert_id
    returning q.alert_id`)) as { rows: { alert_id: string | number }[] };
  return result.rows.map((r) => Number(r.alert_id)).sort((a, b) => a - b);
}

/** Those of these alerts received less than `maxAgeMs` ago (pages older than that are not sent on). */
export async function alertsYoungerThan(tx: Database, alertIds: readonly number[], maxAgeMs: number) {
  if (alertIds.length === 0) return [];
  const rows = await tx
    .select({ id: alerts.id })
    .from(alerts)
    .where(
      and(
        inArray(alerts.id, [...alertIds]),
        sql`${alerts.createdAt} > now() - make_interval(secs => ${maxAgeMs / 1000}::double precision)`,
      ),
    );
  return rows.map((r) => r.id);
}

/**
 * Fires the rules these alerts satisfy, inside the caller's transaction. The index proposes
 * candidates in one pass over each message; each candidate is then confirmed against the database
 * as it is now (rule approved and active, owner active and assigned to the agency) with the domain's
 * ruleFiresFor. A trigger row is inserted per (rule, alert) with ON CONFLICT DO NOTHING, and an SMS
 * is queued only for the rows this transaction actually inserted, so however many matchers run,
 * one rule and one alert give at most one trigger and one SMS. A user whose several rules fire for
 * one alert gets one SMS.
 */
export async function fireRules(
  tx: Database,
  index: RuleIndex,
  alertIds: readonly number[],
  options: MatchOptions,
): Promise<FiredTrigger[]> {
  if (alertIds.length === 0 || index.ruleCount === 0) return [];
  const maxAge = options.maxAlertAgeMs ?? MATCH_MAX_ALERT_AGE_MS;
  const rows = await tx
    .select({
      id: alerts.id,
      type: alerts.type,
      message: alerts.message,
      sentAt: alerts.sentAt,
      createdAt: alerts.createdAt,
      isMachine: alerts.isMachine,
    })
    .from(alerts)
    .where(
      and(
        inArray(alerts.id, [...alertIds]),
        sql`${alerts.createdAt} > now() - make_interval(secs => ${maxAge / 1000}::double precision)`,
      ),
    );
  if (rows.length < alertIds.length) options.onSkipped?.(alertIds.length - rows.length);
  // Machine and test pages (issue 26) fire no rule: nobody is texted a TIMEUPDATE.
  const pages = rows.filter((r) => !r.isMachine);
  if (pages.length === 0) return [];
  const recipients = await recipientsByAlert(
    tx,
    pages.map((r) => r.id),
  );
  const agenciesOf = new Map([...recipients].map(([id, list]) => [id, list.map((r) => r.agencyId)]));
  const capcodesOf = new Map([...recipients].map(([id, list]) => [id, list.map((r) => r.capcodeId)]));

  const proposed: { alert: (typeof rows)[number]; ruleId: number }[] = [];
  for (const alert of pages) {
    for (const ruleId of index.candidates(alert.message, alert.type, agenciesOf.get(alert.id) ?? [])) {
      proposed.push({ alert, ruleId });
    }
  }
  if (proposed.length === 0) return [];

  const ruleRows = await tx
    .select({
      id: userAlertRules.id,
      userId: userAlertRules.userId,
      keywords: userAlertRules.keywords,
      agencies: userAlertRules.agencies,
      priorityLevels: userAlertRules.priorityLevels,
      unitsOnly: userAlertRules.unitsOnly,
      delivery: userAlertRules.delivery,
      phone: users.phone,
    })
    .from(userAlertRules)
    .innerJoin(users, eq(users.id, userAlertRules.userId))
    .where(
      and(
        inArray(userAlertRules.id, [...new Set(proposed.map((p) => p.ruleId))]),
        eq(userAlertRules.status, "approved"),
        eq(userAlertRules.isActive, true),
        eq(users.isActive, true),
      ),
    );
  if (ruleRows.length === 0) return [];
  const rules = new Map(ruleRows.map((r) => [r.id, r]));
  const owned = await tx
    .select({ userId: userAgencies.userId, agencyId: userAgencies.agencyId })
    .from(userAgencies)
    .where(inArray(userAgencies.userId, [...new Set(ruleRows.map((r) => r.userId))]));
  const agenciesOfUser = new Map<number, number[]>();
  for (const o of owned) agenciesOfUser.set(o.userId, [...(agenciesOfUser.get(o.userId) ?? []), o.agencyId]);
  const unitsOfUser = await unitCapcodesByMember(
    tx,
    ruleRows.map((r) => r.userId),
  );

  const confirmed: { alertId: number; ruleId: number; agencyId: number }[] = [];
  for (const { alert, ruleId } of proposed) {
    const rule = rules.get(ruleId);
    if (!rule) continue;
    const agencyId = ruleFiresFor(
      {
        keywords: rule.keywords,
        agencies: rule.agencies,
        priority_levels: rule.priorityLevels,
        units_only: rule.unitsOnly,
      },
      {
        message: alert.message,
        type: alert.type,
        agencyIds: agenciesOf.get(alert.id) ?? [],
        capcodeIds: capcodesOf.get(alert.id) ?? [],
      },
      agenciesOfUser.get(rule.userId) ?? [],
      unitsOfUser.get(rule.userId),
    );
    if (agencyId !== null) confirmed.push({ alertId: alert.id, ruleId, agencyId });
  }
  if (confirmed.length === 0) return [];

  const inserted = await tx
    .insert(ruleTriggers)
    .values(confirmed.map((c) => ({ ruleId: c.ruleId, alertId: c.alertId })))
    .onConflictDoNothing({ target: [ruleTriggers.ruleId, ruleTriggers.alertId] })
    .returning({ id: ruleTriggers.id, ruleId: ruleTriggers.ruleId, alertId: ruleTriggers.alertId });
  if (inserted.length === 0) return [];

  // One SMS per user and alert: skip users who already heard about the alert through another rule.
  const newIds = inserted.map((t) => t.id);
  const earlier = await tx
    .select({ userId: userAlertRules.userId, alertId: ruleTriggers.alertId })
    .from(ruleTriggers)
    .innerJoin(userAlertRules, eq(userAlertRules.id, ruleTriggers.ruleId))
    .where(
      and(
        inArray(
          ruleTriggers.alertId,
          inserted.map((t) => t.alertId),
        ),
        inArray(userAlertRules.userId, [...new Set(inserted.map((t) => rules.get(t.ruleId)!.userId))]),
        // Rules that push instead of texting told nobody by SMS.
        sql`${userAlertRules.delivery} <> 'push'`,
        sql`${ruleTriggers.id} NOT IN (${sql.join(
          newIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      ),
    );
  const told = new Set(earlier.map((e) => `${e.userId}:${e.alertId}`));
  const agencyOf = new Map(confirmed.map((c) => [`${c.ruleId}:${c.alertId}`, c.agencyId]));
  const codes = new Map(
    (
      await tx
        .select({ id: agencies.id, code: agencies.code })
        .from(agencies)
        .where(inArray(agencies.id, [...new Set(confirmed.map((c) => c.agencyId))]))
    ).map((a) => [a.id, a.code]),
  );
  const alertById = new Map(rows.map((r) => [r.id, r]));

  const outgoing: { trigger: (typeof inserted)[number]; userId: number; phone: string; body: string }[] = [];
  for (const trigger of [...inserted].sort((a, b) => a.id - b.id)) {
    const rule = rules.get(trigger.ruleId)!;
    if (!deliversSms(rule.delivery)) continue;
    const key = `${rule.userId}:${trigger.alertId}`;
    if (told.has(key)) continue;
    told.add(key);
    const alert = alertById.get(trigger.alertId)!;
    const agencyId = agencyOf.get(`${trigger.ruleId}:${trigger.alertId}`)!;
    outgoing.push({
      trigger,
      userId: rule.userId,
      phone: rule.phone,
      body: ruleAlertSmsText({
        type: alert.type,
        agency: codes.get(agencyId) ?? "",
        message: alert.message,
        publicUrl: options.publicUrl,
        alertId: alert.id,
        pagedAt: alert.sentAt,
        receivedAt: alert.createdAt,
      }),
    });
  }
  const smsIds = await enqueueManySms(
    tx,
    outgoing.map((o) => ({
      to: o.phone,
      body: o.body,
      kind: "rule" as const,
      userId: o.userId,
      ruleTriggerId: o.trigger.id,
    })),
  );
  const smsByTrigger = new Map(outgoing.map((o, i) => [o.trigger.id, smsIds[i]!]));
  return inserted.map((t) => ({
    triggerId: t.id,
    ruleId: t.ruleId,
    alertId: t.alertId,
    userId: rules.get(t.ruleId)!.userId,
    agencyId: agencyOf.get(`${t.ruleId}:${t.alertId}`)!,
    smsId: smsByTrigger.get(t.id) ?? null,
    push: deliversPush(rules.get(t.ruleId)!.delivery),
  }));
}
