// The admin review of members' rules: the list, the decisions (with the owner's SMS) and the counts.
import { type RuleStatus, ruleReviewSmsText } from "@turnout/domain";
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, ruleTriggers, userAlertRules, users } from "../../db/schema.js";
import { conflict } from "../../errors.js";
import type { Actor } from "../../shared/guard.js";
import { enqueueSms } from "../../sms/queue.js";
import { rulesChanged } from "./matcher.js";
import { presentRuleForReview } from "./present.js";
import { announcePending, notFoundRule, presentOne, recentTriggerCounts } from "./service.js";

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
