// What a rule would have matched: the member's preview while writing one and the admin's of a saved one.
import { type AlertRulePreview, rulePriorityTypes } from "@turnout/domain";
import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, alertRecipients, alerts, userAlertRules } from "../../db/schema.js";
import { assignedAgencyIds, pagedToAny } from "../../shared/alerts/scope.js";
import type { Actor } from "../../shared/guard.js";
import { checkAgencies, notFoundRule } from "./service.js";

/** How many example messages a preview shows. */
export const PREVIEW_SAMPLE_SIZE = 5;
/** A preview counts matches up to this many; beyond it reports the cap (and `total_matches_capped`). */
export const PREVIEW_COUNT_CAP = 1000;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * What a rule would have matched over the last 3 months of the alerts the user may read: the count
 * (capped at PREVIEW_COUNT_CAP) and the newest few messages. Throws 400 for an agency not the user's.
 */
export async function previewRule(db: Database, actor: Actor, input: AlertRulePreview) {
  const own = await checkAgencies(db, actor, input.agencies);
  const scope = input.agencies && input.agencies.length > 0 ? [...new Set(input.agencies)] : own;
  return previewMatches(db, scope, input);
}

/**
 * The member's preview of a saved rule, for the admin review tab: the same count and samples over the
 * agencies the rule covers now (its agencies still assigned to its owner, or all the owner's when it
 * names none: the agencies the matcher fires for). One rule per call, on demand, so the list itself
 * runs no counts. Throws 404 for an unknown rule.
 */
export async function previewRuleForReview(db: Database, id: number) {
  const [rule] = await db.select().from(userAlertRules).where(eq(userAlertRules.id, id));
  if (!rule) throw notFoundRule();
  const own = await assignedAgencyIds(db, rule.userId);
  const scope = rule.agencies.length > 0 ? [...new Set(rule.agencies)].filter((a) => own.includes(a)) : own;
  return previewMatches(db, scope, { keywords: rule.keywords, priority_levels: rule.priorityLevels });
}

/**
 * Counts (up to PREVIEW_COUNT_CAP + 1, so a broad keyword stops early) and samples the last 3 months'
 * alerts paged to any of `scope` that contain every keyword and are of the rule's types. Each keyword
 * is one trigram-indexed ILIKE, combined with the agency scope and the types.
 */
async function previewMatches(
  db: Database,
  scope: readonly number[],
  input: { keywords: readonly string[]; priority_levels?: readonly string[] | null },
) {
  if (scope.length === 0) return { total_matches: 0, total_matches_capped: false, sample_messages: [] };
  const inScope = sql.join(
    scope.map((id) => sql`${id}`),
    sql`, `,
  );
  // The scope is alerts.agency_ids, so the GIN index over (agency_ids, message) serves it with the keywords.
  const conditions: SQL[] = [
    sql`${alerts.sentAt} >= now() - interval '3 months'`,
    pagedToAny([...scope]),
    ...input.keywords.map((k) => sql`${alerts.message} ILIKE ${`%${escapeLike(k)}%`}`),
  ];
  const types = rulePriorityTypes(input.priority_levels);
  if (types) conditions.push(inArray(alerts.type, [...types]));
  const where = and(...conditions);

  const [samples, counted] = await Promise.all([
    db
      .select({
        message: alerts.message,
        // The time the feed shows (SPEC 3 created_at of an alert is its sent_at).
        sentAt: alerts.sentAt,
        // "alerts"."id" is spelt out: inside a subquery Drizzle writes a bare "id", which would bind to
        // the subquery's own tables (agencies has an id).
        agencyName: sql<
          string | null
        >`(SELECT ag.name FROM ${alertRecipients} r JOIN ${agencies} ag ON ag.id = r.agency_id
          WHERE r.alert_id = "alerts"."id" AND r.agency_id IN (${inScope}) ORDER BY r.agency_id LIMIT 1)`,
      })
      .from(alerts)
      .where(where)
      .orderBy(desc(alerts.sentAt), desc(alerts.id))
      .limit(PREVIEW_SAMPLE_SIZE),
    db.execute<{ n: string | number }>(
      sql`SELECT count(*) AS n FROM (SELECT 1 FROM ${alerts} WHERE ${where} LIMIT ${PREVIEW_COUNT_CAP + 1}) capped`,
    ),
  ]);
  const total = Number((counted as unknown as { rows: { n: string | number }[] }).rows[0]?.n ?? 0);
  return {
    total_matches: Math.min(total, PREVIEW_COUNT_CAP),
    total_matches_capped: total > PREVIEW_COUNT_CAP,
    sample_messages: samples.map((s) => ({
      agency_name: s.agencyName,
      created_at: s.sentAt,
      message: s.message,
    })),
  };
}
