// The feed (SPEC 7 /alerts): search pages, one alert, its job group and the stats. Search plans: search-plans.ts.
import { type FeedView, MESSAGES, normalizeAlertType, parseSearchTerms } from "@turnout/domain";
import { and, eq, gte, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alertRecipients, alerts } from "../../db/schema.js";
import { AppError, forbidden } from "../../errors.js";
import { assignedAgencyIds, feedScope, pagedToAny, type Scope } from "../../shared/alerts/scope.js";
import type { Actor } from "../../shared/guard.js";
import { unitViewOf } from "../../shared/units.js";
import { afterCursor, decodeCursor, encodeCursor } from "./cursor.js";
import { type PageConditions, pageRows, type SearchOptions } from "./search-plans.js";
import { checkedPattern, containsPattern, termConditions } from "./term-conditions.js";
import { groupPage, presentForViewer, toGroup } from "./viewer.js";
import { isCandidate } from "./word-blocks.js";

export type SearchInput = {
  limit: number;
  search?: string;
  type?: string;
  area?: string;
  agencyId?: number;
  adminContext?: boolean;
  cursor?: string;
  grouped?: boolean;
  /**
   * The member's units (issue 26; the default) or their whole agencies. A member who chose no unit in
   * an agency reads that agency whole either way. Admin context reads every agency.
   */
  view?: FeedView;
  /** Machine and test pages (domain isMachinePage): hidden unless asked for; always shown in admin context. */
  showMachine?: boolean;
};

const MAX_TERMS = 10;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page of the feed, newest paged first (sent_at: the pager's time, or the receipt time when that was
 * not sane), so a page replayed late from a receiver's spool sits at its time: every search term must appear (case-insensitive), with optional
 * type, area and agency filters. Keyset pagination on (sent_at, id) through an opaque cursor.
 * Throws 403 when asked for an agency outside the viewer's scope, 400 for a bad cursor.
 */
export async function searchAlerts(
  db: Database,
  actor: Actor,
  input: SearchInput,
  options: SearchOptions = {},
) {
  let scope = await feedScope(db, actor, input.adminContext);
  const conditions: SQL[] = [];
  if (!scope.all && !input.showMachine) conditions.push(sql`${alerts.isMachine} = false`);
  /** The agencies the page is limited to; null: every agency. */
  let scopeAgencies: number[] | null = null;
  if (input.agencyId !== undefined) {
    // Asking for one agency by name works even if the viewer hides it in their feed settings.
    if (!scope.all && !(await assignedAgencyIds(db, actor.userId)).includes(input.agencyId)) {
      throw forbidden("You are not assigned to that agency.");
    }
    scopeAgencies = [input.agencyId];
    if (!scope.all) scope = { all: false, agencyIds: [input.agencyId] };
  } else if (!scope.all) {
    if (scope.agencyIds.length === 0) return { data: [], pagination: { has_more: false, next_cursor: null } };
    scopeAgencies = scope.agencyIds;
  }
  if (!scope.all && (input.view ?? "units") === "units") {
    const inView = await unitViewCondition(db, actor.userId, scope.agencyIds);
    if (inView) conditions.push(inView);
  }
  const terms = parseSearchTerms(input.search ?? "").slice(0, MAX_TERMS);
  const patterns = terms.map((term) => `%${escapeLike(term)}%`);
  const searched = await termConditions(db, patterns, options, scopeAgencies);
  if (searched === null) return { data: [], pagination: { has_more: false, next_cursor: null } };
  if (input.type) conditions.push(eq(alerts.type, normalizeAlertType(input.type)));
  if (input.area) conditions.push(sql`lower(${alerts.area}) = lower(${input.area})`);
  if (input.cursor) conditions.push(afterCursor(decodeCursor(input.cursor)));
  const scoped = scopeAgencies ? pagedToAny(scopeAgencies) : null;
  const inScope = [...conditions, ...(scoped ? [scoped] : [])];
  const checks = patterns.map(containsPattern);
  // Common words the word index serves, without agency-qualified lists: the blocks and "recent" serve them.
  const unqualifiedTogether = searched.together && !searched.qualified;
  const where: PageConditions = {
    // With qualified words the scope is in them already; `IS TRUE` (same value) keeps it off the indexes.
    index: [
      ...conditions,
      ...(scoped ? [searched.qualified ? sql`(${scoped}) IS TRUE` : scoped] : []),
      ...searched.conditions,
    ],
    walk: [...inScope, ...checks],
    // Common words without agency-qualified lists: the word blocks may show that few alerts hold them
    // all; then only those alerts' rows are read, by primary key, each checked for every term.
    blocks:
      unqualifiedTogether && options.blocks !== false
        ? {
            words: searched.words,
            where: (candidates) => [...inScope, isCandidate(candidates), ...patterns.map(checkedPattern)],
          }
        : undefined,
    recent: unqualifiedTogether ? { scope: inScope, checks } : undefined,
  };

  const rows = await pageRows(
    db,
    where,
    input.limit + 1,
    !terms.length ? "none" : searched.together ? "together" : searched.sparse ? "sparse" : "some",
    options,
  );
  const page = rows.slice(0, input.limit);
  const hasMore = rows.length > input.limit;
  const pagination = { has_more: hasMore, next_cursor: hasMore ? encodeCursor(page.at(-1)!) : null };

  const presented = await presentForViewer(db, page, scope);
  if (!input.grouped) return { data: presented, pagination };
  return { data: await groupPage(db, presented, scope), pagination };
}

/**
 * The unit view's condition (issue 26) for a member reading `agencyIds`: paged to a capcode of one of
 * their units, or to an agency of theirs in which they chose no unit. Null when they chose no unit
 * there (their agencies whole, as before). Read from the recipients, so moving a capcode into a unit
 * brings its earlier alerts with it.
 */
async function unitViewCondition(db: Database, userId: number, agencyIds: number[]): Promise<SQL | null> {
  const view = await unitViewOf(db, userId, agencyIds);
  if (view.unitIds.length === 0) return null;
  const paged = view.capcodeIds.length
    ? sql`EXISTS (SELECT 1 FROM ${alertRecipients} WHERE ${alertRecipients.alertId} = ${alerts.id}
        AND ${alertRecipients.capcodeId} IN (${sql.join(
          view.capcodeIds.map((id) => sql`${id}`),
          sql`, `,
        )}))`
    : sql`false`;
  return view.wholeAgencyIds.length ? sql`(${pagedToAny([...view.wholeAgencyIds])} OR ${paged})` : paged;
}

/** The newest alerts of the viewer's feed (SPEC 7 /alerts/recent). */
export async function recentAlerts(
  db: Database,
  actor: Actor,
  input: { limit: number; agencyId?: number; view?: FeedView },
) {
  const { data } = await searchAlerts(db, actor, input);
  return data;
}

/**
 * One alert, if the viewer is entitled to it: 404 'Message not found.' when it does not exist,
 * 403 with the SPEC 8 text when none of its agencies is the viewer's (admins see every alert).
 */
export async function getAlert(db: Database, actor: Actor, id: number) {
  const [alert] = await db.select().from(alerts).where(eq(alerts.id, id));
  if (!alert) throw new AppError(404, "not_found", MESSAGES.JOB_NOT_FOUND);
  const scope: Scope = actor.isAdmin
    ? { all: true }
    : { all: false, agencyIds: await assignedAgencyIds(db, actor.userId) };
  const [presented] = await presentForViewer(db, [alert], scope);
  if (!presented) throw new AppError(403, "forbidden", MESSAGES.JOB_FORBIDDEN);
  return presented;
}

/** The messages of an alert's job (grouped-alert dialog): oldest paged first, only those the viewer may read. */
export async function getAlertGroup(db: Database, actor: Actor, id: number) {
  const alert = await getAlert(db, actor, id);
  const scope: Scope = actor.isAdmin
    ? { all: true }
    : { all: false, agencyIds: await assignedAgencyIds(db, actor.userId) };
  if (alert.group_id === null) return toGroup(alert.job_number, [alert]);
  const [group] = await groupPage(db, [alert], scope);
  return group!;
}

/** Counts over the last `days` days of the viewer's feed, by the time shown (SPEC 7 /alerts/stats/overview). */
export async function alertStats(db: Database, actor: Actor, input: { days: number; agencyId?: number }) {
  const scope = await feedScope(db, actor, false);
  if (input.agencyId !== undefined && !scope.all && !scope.agencyIds.includes(input.agencyId)) {
    throw forbidden("You are not assigned to that agency.");
  }
  const ids = input.agencyId !== undefined ? [input.agencyId] : scope.all ? null : scope.agencyIds;
  const since = new Date(Date.now() - input.days * 86_400_000);
  if (ids && ids.length === 0) return { total: 0, days: input.days, by_type: {}, by_day: [] };
  const where = and(gte(alerts.sentAt, since), ids ? pagedToAny(ids) : undefined);
  const byType = await db
    .select({ type: alerts.type, count: sql<number>`count(*)::int` })
    .from(alerts)
    .where(where)
    .groupBy(alerts.type);
  const byDay = await db
    .select({
      day: sql<string>`to_char(date_trunc('day', ${alerts.sentAt}), 'YYYY-MM-DD')`,
      count: sql<number>`count(*)::int`,
    })
    .from(alerts)
    .where(where)
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  return {
    total: byType.reduce((n, r) => n + Number(r.count), 0),
    days: input.days,
    by_type: Object.fromEntries(byType.map((r) => [r.type, Number(r.count)])),
    by_day: byDay.map((r) => ({ date: r.day, count: Number(r.count) })),
  };
}
