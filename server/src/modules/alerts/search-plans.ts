// How a page of search results is read: the plans (planner's own, walk, bitmap, word blocks, recent) and pageRows choosing or racing them.
import { and, desc, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alerts } from "../../db/schema.js";
import type { AlertRow } from "../../shared/alerts/present.js";
import { AttemptDeclined, isQueryCanceled, raceTransactions, setLocal } from "./race.js";
import { blockCandidates, type Candidates } from "./word-blocks.js";

/**
 * How a page of search results was read (see pageRows): "plain" without a transaction; "planner" the
 * planner's own plan (the "timeout" strategy's first attempt); "walk" / "bitmap" with PLAN_SETTINGS;
 * "blocks" the word blocks' candidates by primary key (blockCandidates); "recent" the newest
 * RECENT_WINDOW alerts in scope, checked (PGlite).
 */
export type SearchPlan = "plain" | "planner" | "walk" | "bitmap" | "blocks" | "recent";

/**
 * How many of the newest alerts in scope (after the cursor) the "recent" plan checks before the index's
 * plan answers instead: a page of 51 found among them is the page (every match outside them is older).
 */
export const RECENT_WINDOW = 2_000;

export type SearchOptions = {
  /** The engine behind `db` (the route passes app.dbKind); the plan choice runs on PostgreSQL only. */
  engine?: "postgres" | "pglite";
  /**
   * The same database with each statement cut short by the server (DatabaseHandle.quick; the route
   * passes app.quickDb): the terms' word look-ups run there, one round trip each, and a look-up it
   * cancels leaves its term to the trigram index. Without it they run on `db` with no time limit.
   */
  quick?: Database | null;
  /**
   * Tests and benchmarks only: force one plan instead of choosing ("auto"). "blocks" throws when the
   * search is not one the word blocks serve or they leave too many candidates.
   */
  plan?: "auto" | "plain" | "walk" | "bitmap" | "blocks";
  /**
   * Benchmarks only: how "auto" chooses. "race" (the default): `firstAttempt` (default the planner's
   * own plan), joined by the other plan after `hedgeMs` (the trigram plan, or the walk when the planner
   * chose the trigram plan), first answer wins. "timeout": `firstAttempt`
   * under a statement timeout of `timeoutMs`, then the trigram plan when it is cancelled.
   */
  strategy?: "race" | "timeout";
  firstAttempt?: "planner" | "walk";
  hedgeMs?: number;
  /** When the planner chose the trigram plan, the walk joins after this long instead (WALK_HEDGE_MS). */
  walkHedgeMs?: number;
  timeoutMs?: number;
  /** Tests and benchmarks only: false leaves out the word prefilter (termConditions), the reference. */
  words?: boolean;
  /** Tests and benchmarks only: false never reads the word blocks (blockCandidates). */
  blocks?: boolean;
  /** Tells tests and benchmarks which plan produced the page, and whether another one was cancelled. */
  onPlan?: (plan: SearchPlan, detail: { cancelled: boolean }) => void;
};

/** The "timeout" strategy (kept for comparison): how long the first attempt may run. */
export const FIRST_ATTEMPT_TIMEOUT_MS = 20;

/**
 * Planner settings for each forced plan, applied with set_config(..., true) (SET LOCAL) so they end with
 * the transaction. "walk": alerts_sent_idx (sent_at, id) newest-first, no trigram index; "bitmap": the
 * trigram index (bitmap scans only), then sort the matches by (sent_at, id).
 */
export const PLAN_SETTINGS = {
  walk: { enable_bitmapscan: "off", enable_seqscan: "off", max_parallel_workers_per_gather: "0" },
  bitmap: { enable_indexscan: "off", enable_seqscan: "off", max_parallel_workers_per_gather: "0" },
} as const satisfies Record<string, Record<string, string>>;

/**
 * The planner's own plan without parallel workers: a page is 51 rows, and at 10 M alerts the planner
 * walked STRUC1 HOUSE FIRE with a parallel index scan whose workers took 59-122 ms to start and finish
 * on this busy 2-core machine, against 3.5-6.6 ms for the same walk in one process.
 */
export const OWN_PLAN_SETTINGS = { max_parallel_workers_per_gather: "0" };

/** How long the planner's own plan runs alone before the other plan joins it (see pageRows). */
export const HEDGE_MS = 5;

/**
 * When the planner's own plan reads the trigram index, how long it runs before the walk joins it: such
 * a plan is usually done within ~10 ms (a rare word with a common one), and a walk beside it on two
 * busy cores slowed those searches from ~8 to ~15 ms; it is late only when the words occur together
 * far more often than the planner expects (STRUC1 HOUSE FIRE in one agency: ~40 ms).
 */
export const WALK_HEDGE_MS = 15;

/**
 * Common words together (pageRows): the index's plan starts first and the walk joins after this long.
 * The index answers in ~1 ms when the words' lists are short (a member's agency-qualified words, words
 * that rarely meet); a walk started beside it would take a core until cancelled.
 */
export const TOGETHER_WALK_HEDGE_MS = 3;

/**
 * When the word blocks serve a search, the index's plan and the walk join only after this long (or at
 * once when the blocks decline): started beside them they took the CPU the blocks needed (at 1 M
 * alerts, two words never together: 9.5 ms for the blocks alone, 27 ms raced against the index's plan
 * from the start; the walk, joining after TOGETHER_WALK_HEDGE_MS, reads every alert until cancelled).
 */
export const BLOCKS_BITMAP_HEDGE_MS = 50;

/**
 * Which of the two plans the planner chooses for a page query with the current settings: "bitmap" when
 * it reads the GIN index first (then sorts), else "walk" (alerts_sent_idx newest-first). PostgreSQL.
 */
export async function plannerPlan(db: Database, query: SQLWrapper): Promise<"walk" | "bitmap"> {
  const result = (await db.execute(sql`EXPLAIN (FORMAT JSON) ${query}`)) as unknown as { rows: unknown[] };
  return JSON.stringify(result.rows).includes('"Bitmap Heap Scan"') ? "bitmap" : "walk";
}

/**
 * A page's WHERE, two ways with the same rows: "index" with the word prefilters (termConditions) that
 * the GIN indexes serve, "walk" with only the text checks. A walk tests rows one by one, and there the
 * prefilters are pure cost (at 1 M alerts a member's STRUC1 HOUSE FIRE walked in 57 ms with them, 14 ms
 * without: each row's agency-qualified words were built to be compared).
 */
export type PageConditions = {
  index: SQL[];
  walk: SQL[];
  /** The same rows again, from the word blocks' candidates (blockCandidates), when they have few. */
  blocks?: { words: string[][]; where: (candidates: Candidates) => SQL[] };
  /**
   * The scope (filters, cursor) and the text checks apart, for the "recent" plan: common words the word
   * index serves without agency-qualified lists (a member's few agencies have short qualified lists,
   * and their newest alerts lie far apart among everyone's).
   */
  recent?: { scope: SQL[]; checks: SQL[] };
};

/**
 * The rows of one page (ordered by the time shown, sent_at DESC then id DESC, limited). Search terms are `ILIKE '%term%'`, and at a million
 * alerts on PostgreSQL no single plan serves every search:
 * - walking alerts_sent_idx newest-first and testing each row stops after `limit` matches, so it is
 *   fast exactly when matches are dense among recent alerts, and reads the whole table when there
 *   are none (two common words never found together: seconds);
 * - the GIN index over (agency_ids, message gin_trgm_ops) finds every candidate first and sorts them,
 *   so it is fast exactly when matches are few, and slow for a word in 40 % of messages without an
 *   agency scope (most of a second). With a scope it intersects the agencies' and the words' entries
 *   inside the index, so a small agency's search for a common word its alerts never contain reads
 *   nothing (it used to fetch and recheck every FIRE alert before an EXISTS on recipients dropped them).
 * The planner picks well for single words, but it estimates each term independently: for common
 * words that never occur together it expects many matches and walks, for words that mostly occur
 * together (STRUC1 HOUSE FIRE) it expects few and reads the index, and inside a user's agencies it
 * cannot tell how dense the words are. So a search with terms runs the planner's own plan, and if
 * that has not answered within HEDGE_MS the other plan starts beside it on another connection (EXPLAIN,
 * in that connection, tells which plan the planner chose; a walk joins only at WALK_HEDGE_MS); the
 * first answer wins and the other query is cancelled (raceTransactions). Common words the word index
 * serves ("together", termConditions) start the index's plan and, TOGETHER_WALK_HEDGE_MS later, the
 * walk, whatever the planner thinks: it is wrong about them either way often enough (at 1 M alerts
 * STRUC1 HOUSE FIRE, 4.4 % together, read the index for 25 ms until the walk joining at 15 ms answered;
 * STRUC1 ALARC1, never together, walked until the index joined: 25 ms, against ~13 ms for the index
 * alone). Where the word blocks serve such words (blockCandidates: kept words, no agency-qualified
 * lists), they start first instead of the index's plan: they AND the words' bits and, when few alerts
 * can hold them all, read only those (two words never together at 10 M alerts: the index reads two
 * posting lists of 2 M entries, the blocks a few thousand bit strings); with too many they step aside
 * (AttemptDeclined) and the index's plan starts at once (BLOCKS_BITMAP_HEDGE_MS). All read the same WHERE, ORDER BY and LIMIT, so the page (rows,
 * order, cursor) is the same whichever plan produced it; only the time differs. A feed without terms
 * (which walks alerts_sent_idx anyway) keeps the plain query, and so does a search with a sparse term
 * (termConditions: the word index holds its few rows and the planner knows it from the same statistics;
 * a race's transactions cost a rare word's search more than its query: 13 statements where 7 do,
 * issue 32); so does PGlite, which has one connection
 * and races nothing, except for common words together: the newest alerts, then the index's plan.
 */
export async function pageRows(
  db: Database,
  conditions: PageConditions,
  limit: number,
  terms: "none" | "some" | "sparse" | "together",
  options: SearchOptions,
): Promise<AlertRow[]> {
  const page = (q: Database, where: SQL[]) =>
    q
      .select()
      .from(alerts)
      .where(where.length ? and(...where) : undefined)
      .orderBy(desc(alerts.sentAt), desc(alerts.id))
      .limit(limit);
  // A walk reads the text checks only; every other plan (an index's, or the planner's own) the prefilters.
  const query = (q: Database, plan?: "walk" | "bitmap" | "planner") =>
    page(q, plan === "walk" ? conditions.walk : conditions.index);
  // The candidates' rows, or AttemptDeclined when there are too many. `tx` is a transaction: the blocks
  // are read by an index-only scan, the candidates by bitmap scans of the primary key (walking
  // alerts_sent_idx for them instead reads every alert when none match: 128 ms at 200,000 on PGlite).
  const fromBlocks = async (tx: Database) => {
    const candidates = conditions.blocks && (await blockCandidates(tx, conditions.blocks.words));
    if (!candidates) throw new AttemptDeclined("the word blocks leave too many candidates");
    await tx.execute(setLocal(PLAN_SETTINGS.bitmap));
    return page(tx, conditions.blocks!.where(candidates));
  };
  const blocksAlone = () =>
    db.transaction(async (tx) => {
      await tx.execute(setLocal(OWN_PLAN_SETTINGS));
      return fromBlocks(tx);
    });
  const bitmapAlone = () =>
    db.transaction(async (tx) => {
      await tx.execute(setLocal(PLAN_SETTINGS.bitmap));
      return query(tx, "bitmap");
    });
  // The newest RECENT_WINDOW alerts in scope, checked: a whole page among them is the page. A derived
  // table (named like the table, so the checks read its columns), walked in order until the page is
  // whole: `id IN (the newest)` let the planner read every match from the trigram index and join
  // (74 ms against 2.8 ms at 200,000 alerts; 3 s before ANALYZE).
  const recent = async ({ scope, checks }: NonNullable<PageConditions["recent"]>) => {
    const newest = db
      .select()
      .from(alerts)
      .where(scope.length ? and(...scope) : undefined)
      .orderBy(desc(alerts.sentAt), desc(alerts.id))
      .limit(RECENT_WINDOW)
      .as("alerts");
    const rows = await db
      .select()
      .from(newest)
      .where(and(...checks))
      .orderBy(desc(newest.sentAt), desc(newest.id))
      .limit(limit);
    return rows.length === limit ? rows : null;
  };
  const plan = options.plan ?? "auto";
  if (plan === "blocks") {
    const rows = await blocksAlone();
    options.onPlan?.("blocks", { cancelled: false });
    return rows;
  }
  // PGlite has one connection and no working statement_timeout, so nothing races and no walk can be
  // cut short. The planner estimates the words independently and walks for two it expects together
  // often; when they never are, the walk reads every alert (STRUC1 ALARC1 at 200,000 alerts: 345 ms
  // walked, 4.7 ms from the index). So common words the word index serves are checked in the newest
  // RECENT_WINDOW alerts first (a bounded walk: STRUC1 HOUSE FIRE, 4.4 % together, fills its page
  // there), then read from the index. Not from the word blocks: they read every alert above the sealed
  // blocks, up to two blocks of them, ~20 ms on PGlite whatever the size, more than the index's plan at
  // the sizes PGlite holds (9-12 ms for STRUC1 ALARC1 at 20,000 and 200,000 alerts).
  if (options.engine !== "postgres" && terms === "together" && plan === "auto") {
    const found = conditions.recent && (await recent(conditions.recent));
    if (found) {
      options.onPlan?.("recent", { cancelled: false });
      return found;
    }
    const rows = await bitmapAlone();
    options.onPlan?.("bitmap", { cancelled: false });
    return rows;
  }
  if (
    options.engine !== "postgres" ||
    plan === "plain" ||
    ((terms === "none" || terms === "sparse") && plan === "auto")
  ) {
    options.onPlan?.("plain", { cancelled: false });
    return query(db);
  }
  if (plan === "auto" && terms === "together" && options.strategy !== "timeout" && !options.firstAttempt) {
    // With the word blocks: they alone first; the index's plan and the walk when the blocks decline (a
    // failure starts every attempt still waiting) or after BLOCKS_BITMAP_HEDGE_MS. Without: the index's
    // plan, and the walk after TOGETHER_WALK_HEDGE_MS.
    const plans = conditions.blocks ? (["blocks", "bitmap", "walk"] as const) : (["bitmap", "walk"] as const);
    const delays = {
      blocks: 0,
      walk: options.hedgeMs ?? (conditions.blocks ? BLOCKS_BITMAP_HEDGE_MS : TOGETHER_WALK_HEDGE_MS),
      bitmap: conditions.blocks ? BLOCKS_BITMAP_HEDGE_MS : 0,
    };
    const won = await raceTransactions(
      db,
      plans.map((p) => ({
        settings: p === "blocks" ? OWN_PLAN_SETTINGS : PLAN_SETTINGS[p],
        run: (tx: Database) => (p === "blocks" ? fromBlocks(tx) : query(tx, p)),
        delayMs: delays[p],
      })),
    );
    options.onPlan?.(plans[won.index]!, { cancelled: won.othersPending });
    return won.value;
  }
  if (plan === "auto" && (options.strategy ?? "race") === "race") {
    // The first attempt alone (it answers most searches in a few ms); the other plan joins after
    // HEDGE_MS, and the first answer wins.
    const first = options.firstAttempt ?? "planner";
    let hedge: "walk" | "bitmap" = "bitmap";
    let settled = false;
    const started = performance.now();
    const race = raceTransactions(db, [
      {
        settings: first === "walk" ? PLAN_SETTINGS.walk : OWN_PLAN_SETTINGS,
        run: (tx: Database) => query(tx, first),
      },
      {
        settings: OWN_PLAN_SETTINGS,
        run: async (tx: Database) => {
          if (first === "planner" && (await plannerPlan(tx, query(tx))) === "bitmap") {
            // The planner reads the index: the walk joins later (WALK_HEDGE_MS), unless it has answered.
            hedge = "walk";
            const wait = (options.walkHedgeMs ?? WALK_HEDGE_MS) - (performance.now() - started);
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            if (settled) throw new Error("The search has already been answered.");
          }
          await tx.execute(setLocal(PLAN_SETTINGS[hedge]));
          return query(tx, hedge);
        },
        delayMs: options.hedgeMs ?? HEDGE_MS,
      },
    ]);
    // Runs before the await below resumes, so a hedge still waiting sees it and never starts.
    race.then(
      () => {
        settled = true;
      },
      () => {},
    );
    const { index, value, othersPending } = await race;
    options.onPlan?.(index === 0 ? first : hedge, { cancelled: othersPending });
    return value;
  }
  if (plan !== "bitmap") {
    const first = plan === "walk" || options.firstAttempt === "walk" ? "walk" : "planner";
    const settings: Record<string, string> =
      first === "walk" ? { ...PLAN_SETTINGS.walk } : { ...OWN_PLAN_SETTINGS };
    if (plan === "auto") settings.statement_timeout = String(options.timeoutMs ?? FIRST_ATTEMPT_TIMEOUT_MS);
    try {
      const rows = await db.transaction(async (tx) => {
        await tx.execute(setLocal(settings));
        return query(tx, first);
      });
      options.onPlan?.(first, { cancelled: false });
      return rows;
    } catch (err) {
      if (plan !== "auto" || !isQueryCanceled(err)) throw err;
    }
  }
  const rows = await bitmapAlone();
  options.onPlan?.("bitmap", { cancelled: plan === "auto" });
  return rows;
}
