import {
  type AlertRuleInput,
  type AlertRulePreview,
  DEFAULT_RULE_DELIVERY,
  type RuleStatus,
  rulePriorityTypes,
  ruleReviewSmsText,
} from "@turnout/domain";
import { and, asc, count, desc, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, alertRecipients, alerts, ruleTriggers, userAlertRules, users } from "../../db/schema.js";
import { AppError, badRequest, conflict } from "../../errors.js";
import { assignedAgencyIds, pagedToAny } from "../../shared/alerts/scope.js";
import type { Actor } from "../../shared/guard.js";
import { enqueueSms } from "../../sms/queue.js";
import { rulesChanged } from "./matcher.js";
import { presentRule, presentRuleAgency, presentRuleForReview, type RuleRow } from "./present.js";

/** Most rules one user may keep; each costs the matcher and the admins' review time. */
export const MAX_RULES_PER_USER = 50;
/** How many example messages a preview shows. */
export const PREVIEW_SAMPLE_SIZE = 5;
/** A preview counts matches up to this many; beyond it reports the cap (and `total_matches_capped`). */
export const PREVIEW_COUNT_CAP = 1000;
const TRIGGER_WINDOW_DAYS = 30;

export const RULE_NOT_FOUND = "Alert rule not found.";
export const TOGGLE_NEEDS_APPROVAL =
  "Only approved alert rules can be turned on or off. This rule is waiting for an admin's review.";

const notFoundRule = () => new AppError(404, "not_found", RULE_NOT_FOUND);

/** Triggers in the last 30 days per rule id (SPEC 3 triggers_last_30_days). */
async function recentTriggerCounts(db: Database, ruleIds: number[]): Promise<Map<number, number>> {
  if (ruleIds.length === 0) return new Map();
  const since = new Date(Date.now() - TRIGGER_WINDOW_DAYS * 86_400_000);
  const rows = await db
    .select({ ruleId: ruleTriggers.ruleId, n: count() })
    .from(ruleTriggers)
    .where(and(inArray(ruleTriggers.ruleId, ruleIds), gte(ruleTriggers.createdAt, since)))
    .groupBy(ruleTriggers.ruleId);
  return new Map(rows.map((r) => [r.ruleId, Number(r.n)]));
}

async function presentRules(db: Database, rows: RuleRow[]) {
  const counts = await recentTriggerCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => presentRule(r, counts.get(r.id) ?? 0));
}

async function presentOne(db: Database, row: RuleRow) {
  const [presented] = await presentRules(db, [row]);
  return presented!;
}

/** The signed-in user's rules, newest first. */
export async function listRules(db: Database, actor: Actor) {
  const rows = await db
    .select()
    .from(userAlertRules)
    .where(eq(userAlertRules.userId, actor.userId))
    .orderBy(desc(userAlertRules.createdAt), desc(userAlertRules.id));
  return presentRules(db, rows);
}

/** The agencies the user is assigned to: the ones a rule may watch. */
export async function listRuleAgencies(db: Database, actor: Actor) {
  const ids = await assignedAgencyIds(db, actor.userId);
  if (ids.length === 0) return [];
  const rows = await db.select().from(agencies).where(inArray(agencies.id, ids)).orderBy(asc(agencies.name));
  return rows.map(presentRuleAgency);
}

/** Throws 400 naming the first agency that is not one of the user's; returns the user's agency ids. */
async function checkAgencies(db: Database, actor: Actor, chosen: readonly number[] | null | undefined) {
  const own = await assignedAgencyIds(db, actor.userId);
  const refused = (chosen ?? []).find((id) => !own.includes(id));
  if (refused !== undefined) {
    throw badRequest(`Agency ${refused} is not one of your agencies.`, {
      fields: [{ field: "body.agencies", message: "must be among your agencies" }],
    });
  }
  return own;
}

function ruleValues(input: AlertRuleInput) {
  return {
    name: input.name,
    description: input.description || null,
    keywords: input.keywords,
    agencies: [...new Set(input.agencies ?? [])],
    priorityLevels: [...new Set(input.priority_levels ?? [])],
  };
}

/**
 * Creates a rule for the signed-in user, pending an admin's review (SPEC 4). Throws 400 when an
 * agency is not the user's, 409 when the user already has MAX_RULES_PER_USER rules.
 */
export async function createRule(ctx: ServiceContext, actor: Actor, input: AlertRuleInput) {
  await checkAgencies(ctx.db, actor, input.agencies);
  const row = await ctx.db.transaction(async (tx) => {
    // Serialise one user's creations so the limit holds under concurrent requests.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${0x7275_6c65}, ${actor.userId})`);
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(userAlertRules)
      .where(eq(userAlertRules.userId, actor.userId));
    if (Number(n) >= MAX_RULES_PER_USER) {
      throw conflict(`You can have at most ${MAX_RULES_PER_USER} alert rules. Delete one to add another.`);
    }
    const [created] = await tx
      .insert(userAlertRules)
      .values({
        userId: actor.userId,
        ...ruleValues(input),
        delivery: input.delivery ?? DEFAULT_RULE_DELIVERY,
        unitsOnly: input.units_only ?? true,
        status: "pending",
        isActive: true,
      })
      .returning();
    return created!;
  });
  announcePending(ctx);
  return presentOne(ctx.db, row);
}

/**
 * Replaces one of the user's rules; an edited rule goes back to pending review and loses any
 * rejection reason. Throws 404 when the rule is not the user's, 400 for an agency not theirs.
 */
export async function updateRule(ctx: ServiceContext, actor: Actor, id: number, input: AlertRuleInput) {
  await checkAgencies(ctx.db, actor, input.agencies);
  const [before] = await ownRule(ctx.db, actor, id);
  const delivery = input.delivery ?? before?.delivery ?? DEFAULT_RULE_DELIVERY;
  const unitsOnly = input.units_only ?? before?.unitsOnly ?? true;
  if (before && sameMatching(before, { ...ruleValues(input), unitsOnly })) {
    // Only how the member hears about it changed (or nothing): no new review, the matcher rebuilds.
    const [row] = await ctx.db
      .update(userAlertRules)
      .set({ delivery, updatedAt: sql`now()` })
      .where(and(eq(userAlertRules.id, id), eq(userAlertRules.userId, actor.userId)))
      .returning();
    if (!row) throw notFoundRule();
    if (row.status === "approved") rulesChanged(ctx);
    return presentOne(ctx.db, row);
  }
  const [row] = await ctx.db
    .update(userAlertRules)
    .set({
      ...ruleValues(input),
      delivery,
      unitsOnly,
      status: "pending",
      rejectionReason: null,
      reviewedBy: null,
      reviewedAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(userAlertRules.id, id), eq(userAlertRules.userId, actor.userId)))
    .returning();
  if (!row) throw notFoundRule();
  if (before?.status === "approved") rulesChanged(ctx);
  announcePending(ctx);
  return presentOne(ctx.db, row);
}

/** Whether a rule would match, and be described, exactly as before (what an admin reviewed). */
function sameMatching(
  before: typeof userAlertRules.$inferSelect,
  next: ReturnType<typeof ruleValues> & { unitsOnly: boolean },
): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    before.name === next.name &&
    (before.description ?? null) === next.description &&
    same(before.keywords, next.keywords) &&
    same([...before.agencies].sort(), [...next.agencies].sort()) &&
    same([...before.priorityLevels].sort(), [...next.priorityLevels].sort()) &&
    before.unitsOnly === next.unitsOnly
  );
}

function ownRule(db: Database, actor: Actor, id: number) {
  return db
    .select()
    .from(userAlertRules)
    .where(and(eq(userAlertRules.id, id), eq(userAlertRules.userId, actor.userId)));
}

/** Deletes one of the user's rules (its trigger history goes with it). Throws 404 when not theirs. */
export async function deleteRule(ctx: ServiceContext, actor: Actor, id: number): Promise<void> {
  const [row] = await ctx.db
    .delete(userAlertRules)
    .where(and(eq(userAlertRules.id, id), eq(userAlertRules.userId, actor.userId)))
    .returning({ status: userAlertRules.status });
  if (!row) throw notFoundRule();
  if (row.status === "approved") rulesChanged(ctx);
  if (row.status === "pending") announcePending(ctx);
}

/**
 * Turns an approved rule on or off (flips it when `isActive` is not given). Throws 404 when the
 * rule is not the user's, 409 when it is not approved (pending, rejected and suspended rules cannot be
 * switched: they never fire).
 */
export async function toggleRule(ctx: ServiceContext, actor: Actor, id: number, isActive?: boolean) {
  const [row] = await ctx.db
    .update(userAlertRules)
    .set({
      isActive: isActive === undefined ? sql`NOT ${userAlertRules.isActive}` : isActive,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(userAlertRules.id, id),
        eq(userAlertRules.userId, actor.userId),
        eq(userAlertRules.status, "approved"),
      ),
    )
    .returning();
  if (!row) {
    const [existing] = await ownRule(ctx.db, actor, id);
    if (!existing) throw notFoundRule();
    throw conflict(toggleRefusal(existing.status));
  }
  rulesChanged(ctx);
  return presentOne(ctx.db, row);
}

function toggleRefusal(status: string): string {
  if (status === "rejected")
    return "Only approved alert rules can be turned on or off. This rule was not approved.";
  if (status === "suspended")
    return "Only approved alert rules can be turned on or off. This rule has been suspended by an admin.";
  return TOGGLE_NEEDS_APPROVAL;
}

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

// ---------------------------------------------------------------------------
// Admin review
// ---------------------------------------------------------------------------

/** Rules for the admin review tab, optionally of one status, most recently changed first. */
export async function listRulesForReview(
  db: Database,
  options: { status?: RuleStatus; limit: number; offset: number },
) {
  const where = options.status ? eq(userAlertRules.status, options.status) : undefined;
  const [rows, [totals]] = await Promise.all([
    db
      .select({ rule: userAlertRules, owner: users })
      .from(userAlertRules)
      .innerJoin(users, eq(users.id, userAlertRules.userId))
      .where(where)
      .orderBy(desc(userAlertRules.updatedAt), desc(userAlertRules.id))
      .limit(options.limit)
      .offset(options.offset),
    db.select({ n: count() }).from(userAlertRules).where(where),
  ]);
  const counts = await recentTriggerCounts(
    db,
    rows.map((r) => r.rule.id),
  );
  const agencyIds = [...new Set(rows.flatMap((r) => r.rule.agencies))];
  const agencyRows = agencyIds.length
    ? await db.select().from(agencies).where(inArray(agencies.id, agencyIds))
    : [];
  const byId = new Map(agencyRows.map((a) => [a.id, a]));
  return {
    items: rows.map((r) => presentRuleForReview(r.rule, counts.get(r.rule.id) ?? 0, r.owner, byId)),
    total: Number(totals?.n ?? 0),
  };
}

type Decision = { to: RuleStatus; from: RuleStatus[]; sms: "approved" | "rejected" | "suspended" };

const DECISIONS = {
  approve: { to: "approved", from: ["pending", "rejected", "suspended"], sms: "approved" },
  reject: { to: "rejected", from: ["pending", "approved", "suspended"], sms: "rejected" },
  suspend: { to: "suspended", from: ["approved"], sms: "suspended" },
} as const satisfies Record<string, Decision>;

const REFUSALS: Record<keyof typeof DECISIONS, (status: string) => string> = {
  approve: () => "This alert rule is already approved.",
  reject: () => "This alert rule has already been rejected.",
  suspend: (status) =>
    status === "suspended"
      ? "This alert rule is already suspended."
      : "Only approved alert rules can be suspended.",
};

/**
 * Records an admin's decision on a rule and, in the same transaction, queues the SMS telling its
 * owner (approved, rejected with the reason, or suspended); the SMS worker is woken after the commit.
 * Throws 404 for an unknown rule, 409 when the rule is not in a state the decision applies to.
 */
export async function reviewRule(
  ctx: ServiceContext,
  actor: Actor,
  id: number,
  action: keyof typeof DECISIONS,
  reason?: string,
) {
  const decision: Decision = DECISIONS[action];
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(userAlertRules)
      .set({
        status: decision.to,
        rejectionReason: decision.to === "rejected" ? (reason ?? null) : null,
        reviewedBy: actor.userId,
        reviewedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(userAlertRules.id, id), inArray(userAlertRules.status, decision.from)))
      .returning();
    if (!row) {
      const [existing] = await tx
        .select({ status: userAlertRules.status })
        .from(userAlertRules)
        .where(eq(userAlertRules.id, id));
      if (!existing) throw notFoundRule();
      throw conflict(REFUSALS[action](existing.status));
    }
    const [owner] = await tx.select().from(users).where(eq(users.id, row.userId));
    if (owner?.isActive) {
      await enqueueSms(tx, {
        to: owner.phone,
        body: ruleReviewSmsText({ ruleName: row.name, decision: decision.sms, reason }),
        kind: "rule_review",
        userId: owner.id,
      });
    }
    return { row, notified: Boolean(owner?.isActive) };
  });
  if (outcome.notified) ctx.nudgeSms();
  rulesChanged(ctx);
  announcePending(ctx);
  return presentOne(ctx.db, outcome.row);
}

/**
 * Tells the admins' screens how many rules now wait for review (live `user-alerts:pending`), counted
 * after the change committed. A failed count is logged, never the request's failure: the admin tab
 * also reads the count when it loads.
 */
function announcePending(ctx: ServiceContext): void {
  ctx.db
    .select({ n: count() })
    .from(userAlertRules)
    .where(eq(userAlertRules.status, "pending"))
    .then(([row]) => ctx.live.pendingRulesChanged(Number(row?.n ?? 0)))
    .catch((err: unknown) => ctx.logger.warn({ err }, "rules: could not count pending rules"));
}

/** Counts for the admin tab: rules by status, active ones, owners, and recent triggers. */
export async function ruleStats(db: Database) {
  const [byStatus, [active], [owners], [recent]] = await Promise.all([
    db
      .select({ status: userAlertRules.status, n: count() })
      .from(userAlertRules)
      .groupBy(userAlertRules.status),
    db
      .select({ n: count() })
      .from(userAlertRules)
      .where(and(eq(userAlertRules.status, "approved"), eq(userAlertRules.isActive, true))),
    db.select({ n: sql<number>`count(DISTINCT ${userAlertRules.userId})` }).from(userAlertRules),
    db
      .select({
        day: sql<number>`count(*) FILTER (WHERE ${ruleTriggers.createdAt} >= now() - interval '1 day')`,
        month: count(),
      })
      .from(ruleTriggers)
      .where(sql`${ruleTriggers.createdAt} >= now() - interval '30 days'`),
  ]);
  const n = (status: RuleStatus) => Number(byStatus.find((r) => r.status === status)?.n ?? 0);
  return {
    overview: {
      total_alerts: byStatus.reduce((sum, r) => sum + Number(r.n), 0),
      pending_alerts: n("pending"),
      approved_alerts: n("approved"),
      rejected_alerts: n("rejected"),
      suspended_alerts: n("suspended"),
      active_alerts: Number(active?.n ?? 0),
      users_with_alerts: Number(owners?.n ?? 0),
      triggers_last_24_hours: Number(recent?.day ?? 0),
      triggers_last_30_days: Number(recent?.month ?? 0),
    },
  };
}
