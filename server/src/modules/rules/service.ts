// A member's own rules (list, create, edit, delete, switch) and the reads preview.ts and review.ts share.
import { type AlertRuleInput, DEFAULT_RULE_DELIVERY } from "@turnout/domain";
import { and, asc, count, desc, eq, gte, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, ruleTriggers, userAlertRules } from "../../db/schema.js";
import { AppError, badRequest, conflict } from "../../errors.js";
import { assignedAgencyIds } from "../../shared/alerts/scope.js";
import type { Actor } from "../../shared/guard.js";
import { rulesChanged } from "./matcher.js";
import { presentRule, presentRuleAgency, type RuleRow } from "./present.js";

/** Most rules one user may keep; each costs the matcher and the admins' review time. */
export const MAX_RULES_PER_USER = 50;
const TRIGGER_WINDOW_DAYS = 30;

export const RULE_NOT_FOUND = "Alert rule not found.";
export const TOGGLE_NEEDS_APPROVAL =
  "Only approved alert rules can be turned on or off. This rule is waiting for an admin's review.";

export const notFoundRule = () => new AppError(404, "not_found", RULE_NOT_FOUND);

/** Triggers in the last 30 days per rule id (SPEC 3 triggers_last_30_days). */
export async function recentTriggerCounts(db: Database, ruleIds: number[]): Promise<Map<number, number>> {
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

export async function presentOne(db: Database, row: RuleRow) {
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
export async function checkAgencies(
  db: Database,
  actor: Actor,
  chosen: readonly number[] | null | undefined,
) {
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

/**
 * Tells the admins' screens how many rules now wait for review (live `user-alerts:pending`), counted
 * after the change committed. A failed count is logged, never the request's failure: the admin tab
 * also reads the count when it loads.
 */
export function announcePending(ctx: ServiceContext): void {
  ctx.db
    .select({ n: count() })
    .from(userAlertRules)
    .where(eq(userAlertRules.status, "pending"))
    .then(([row]) => ctx.live.pendingRulesChanged(Number(row?.n ?? 0)))
    .catch((err: unknown) => ctx.logger.warn({ err }, "rules: could not count pending rules"));
}
