import { type FeedView, MESSAGES, normalizeAlertType, parseSearchTerms } from "@turnout/domain";
import { and, asc, desc, eq, gte, inArray, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { arrayLiteral } from "../../db/rows.js";
import {
  agencyWordsExpression,
  alertRecipients,
  alerts,
  searchWords,
  searchWordsExpression,
  userAgencies,
} from "../../db/schema.js";
import { AppError, badRequest, forbidden } from "../../errors.js";
import type { Actor } from "../auth/guard.js";
import { unitViewOf } from "../units/service.js";
import { hiddenAgencyIds } from "../user-filters/service.js";
import { pageContext } from "./page-context.js";
import { type AlertRow, type AlertUnit, type PresentedAlert, presentAlert } from "./present.js";
import { blockCandidates, type Candidates, isCandidate } from "./word-blocks.js";
import { RARE_TERM_SHARE, termShares } from "./word-shares.js";

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

/** The agencies a viewer may read: every agency for an admin in admin context, else their own. */
export type Scope = { all: true } | { all: false; agencyIds: number[] };

const MAX_TERMS = 10;

/** The agency ids assigned to a user. */
export async function assignedAgencyIds(db: Database, userId: number): Promise<number[]> {
  const rows = await db
    .select({ id: userAgencies.agencyId })
    .from(userAgencies)
    .where(eq(userAgencies.userId, userId));
  return rows.map((r) => r.id);
}

/** The feed's scope: admin context (admins only) sees everything; others their agencies minus hidden ones. */
async function feedScope(db: Database, actor: Actor, adminContext: boolean | undefined): Promise<Scope> {
  if (adminContext && actor.isAdmin) return { all: true };
  const [assigned, hidden] = await Promise.all([
    assignedAgencyIds(db, actor.userId),
    hiddenAgencyIds(db, actor.userId),
  ]);
  return { all: false, agencyIds: assigned.filter((id) => !hidden.includes(id)) };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Alerts paged to any of these agencies. alerts.agency_ids (migration 0006) is the recipients' agencies,
 * kept by a trigger on alert_recipients, so this equals an EXISTS on alert_recipients; unlike it, the GIN
 * index over (agency_ids, message) answers the scope and the search words together.
 */
export function pagedToAny(agencyIds: number[]): SQL {
  return sql`${alerts.agencyIds} && ARRAY[${sql.join(
    agencyIds.map((id) => sql`${id}`),
    sql`, `,
  )}]::integer[]`;
}

/** The feed's keyset position: the last alert's time (sent_at, in ms) and id; opaque to clients. */
export type FeedCursor = { at: number; id: number };

export function encodeCursor(alert: { sentAt: Date; id: number }): string {
  return Buffer.from(JSON.stringify({ at: alert.sentAt.getTime(), id: alert.id }), "utf8").toString(
    "base64url",
  );
}

function decodeCursor(cursor: string): FeedCursor {
  try {
    const { at, id } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as {
      at?: unknown;
      id?: unknown;
    };
    const validId = typeof id === "number" && Number.isSafeInteger(id) && id > 0;
    // A Date holds up to 8.64e15 ms either side of 1970.
    if (validId && typeof at === "number" && Number.isInteger(at) && Math.abs(at) <= 8.64e15)
      return { at, id };
  } catch {
    // fall through
  }
  throw badRequest("The cursor is not valid; start again without it.");
}

/** Alerts after the cursor in the feed's order, (sent_at, id) descending: one row comparison the index reads. */
function afterCursor(cursor: FeedCursor): SQL {
  return sql`(${alerts.sentAt}, ${alerts.id}) < (${new Date(cursor.at).toISOString()}::timestamptz, ${cursor.id})`;
}

/** A term's words (termConditions) serve it when at most this many words contain it. */
export const MAX_TERM_WORDS = 64;
/** How long the look-up of one term's words may take on PostgreSQL before the term goes without. */
const TERM_WORDS_TIMEOUT_MS = 100;

/**
 * The search condition of each term (ILIKE patterns), served by the word index where it can be
 * (migration 0016). Words are the message's lower-cased pieces between spaces; a term holds no space,
 * so a message contains it exactly when one of its words does, and search_words holds every word of
 * every alert. So `words && ARRAY[the words that contain the term]` keeps every alert that contains the
 * term, and lets the GIN index over (agency_ids, words) read one posting list per word, already within
 * the viewer's agencies; the ILIKE beside it still decides, written `(… ILIKE …) IS TRUE` (the same
 * value: message is never null) so that the planner cannot also read the trigram index for the term and
 * intersect the two (at 10 M alerts the trigram side of such a BitmapAnd took 16-56 ms for a rare word,
 * the word side 0.02-1.6 ms). The words are matched with the same pattern, lower-cased by the database
 * as ILIKE lower-cases. A term inside more than MAX_TERM_WORDS words (e.g. a few digits: inside every
 * job number), shorter than three characters (search_words' trigram index cannot look it up) or whose
 * look-up passes its timeout keeps the plain ILIKE that the trigram index serves. Null when some term
 * is in no word at all: no alert contains it. `together` is true for two or more terms that the word
 * index serves, none of them rare: how often such words occur together is what the planner cannot tell
 * (pageRows then races the index's plan and the walk whatever the planner thinks); `words` then holds
 * each term's words, for the word blocks (blockCandidates), and is empty otherwise. Searching inside `scopeAgencies` (up to MAX_QUALIFIED_AGENCIES;
 * null: every agency), a served term reads the agency-qualified words instead ('12:fire',
 * alerts_agency_words_idx), so only those agencies' posting lists; `qualified` says so, and the caller's
 * agency condition is then only checked, never read from an index (the qualified words already are the
 * scope: an index intersecting the agencies' entries again would cost what this saves).
 */
export async function termConditions(
  db: Database,
  patterns: string[],
  options: Pick<SearchOptions, "engine" | "words">,
  scopeAgencies: number[] | null = null,
): Promise<{ conditions: SQL[]; together: boolean; qualified: boolean; words: string[][] } | null> {
  const unserved = {
    conditions: patterns.map(containsPattern),
    together: false,
    qualified: false,
    words: [],
  };
  if (options.words === false) return unserved;
  const lookUp = (q: Database, pattern: string) =>
    q
      .selectDistinct({ word: searchWords.word })
      .from(searchWords)
      .where(sql`${searchWords.word} LIKE lower(${pattern})`)
      .limit(MAX_TERM_WORDS + 1);
  // Three characters between the pattern's % signs (escapes aside), so a trigram exists.
  const usable = (p: string) => [...p.slice(1, -1).replace(/\\(.)/g, "$1")].length >= 3;
  const lookUpAll = async (q: Database) => {
    const out: ({ word: string }[] | undefined)[] = [];
    for (const p of patterns) out.push(usable(p) ? await lookUp(q, p) : undefined);
    return out;
  };
  let found: ({ word: string }[] | undefined)[];
  try {
    found =
      options.engine === "postgres"
        ? await db.transaction(async (tx) => {
            await tx.execute(setLocal({ statement_timeout: String(TERM_WORDS_TIMEOUT_MS) }));
            return lookUpAll(tx);
          })
        : await lookUpAll(db);
  } catch (err) {
    if (!isQueryCanceled(err)) throw err;
    return unserved;
  }
  if (found.some((words) => words?.length === 0)) return null;
  const served = found.map((words) => (words && words.length <= MAX_TERM_WORDS ? words : undefined));
  // With a rare term among them, only the rare terms go to the index: it reads their short posting
  // lists and the heap checks the rest on the few rows left (a common word's posting list costs more to
  // step through than those rows: FIRE WOMBELANO in a small agency took 51 ms with both in the index).
  const share = await termShares(
    db,
    served.map((words) => words?.map((w) => w.word)),
  );
  const rare = share.map((x) => x !== undefined && x < RARE_TERM_SHARE);
  const anyRare = rare.some(Boolean);
  const together = patterns.length >= 2 && !anyRare && served.every(Boolean);
  const qualify = scopeAgencies !== null && scopeAgencies.length <= MAX_QUALIFIED_AGENCIES;
  let qualified = false;
  const conditions = patterns.map((p, i) => {
    const words = served[i];
    if (!words) return containsPattern(p);
    // Written so that no index can serve it: the trigram index must not be intersected with the words'.
    const checked = checkedPattern(p);
    if (anyRare && !rare[i]) return checked;
    if (!qualify) {
      return sql`${searchWordsExpression(alerts.message)} && ${textArray(words.map((w) => w.word))} AND ${checked}`;
    }
    qualified = true;
    const qualifiedWords = scopeAgencies.flatMap((a) => words.map((w) => `${a}:${w.word}`));
    return sql`${agencyWordsExpression(alerts.agencyIds, alerts.message)} && ${textArray(qualifiedWords)} AND ${checked}`;
  });
  return { conditions, together, qualified, words: together ? served.map((w) => w!.map((x) => x.word)) : [] };
}

/** The message contains the ILIKE pattern: the one text check every search term gets. */
function containsPattern(pattern: string): SQL {
  return sql`${alerts.message} ILIKE ${pattern}`;
}

/** containsPattern written so that no index can serve it (`IS TRUE`: the same value, message is never null). */
function checkedPattern(pattern: string): SQL {
  return sql`(${containsPattern(pattern)}) IS TRUE`;
}

/** A text[] literal of parameters. */
function textArray(list: string[]): SQL {
  return sql`ARRAY[${sql.join(
    list.map((k) => sql`${k}`),
    sql`, `,
  )}]::text[]`;
}

/** Up to this many agencies in a search's scope, its terms read the agency-qualified words. */
export const MAX_QUALIFIED_AGENCIES = 8;

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
const OWN_PLAN_SETTINGS = { max_parallel_workers_per_gather: "0" };

function setConfigs(settings: Record<string, string>): SQL[] {
  return Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`);
}

function setLocal(settings: Record<string, string>): SQL {
  return sql`SELECT ${sql.join(setConfigs(settings), sql`, `)}`;
}

const QUERY_CANCELED = "57014";

function isQueryCanceled(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === QUERY_CANCELED) return true;
  }
  return false;
}

const CANCEL_RETRY_MS = 50;
const CANCEL_TRIES = 5;

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
 * When the word blocks serve a search, the index's plan joins only after this long (or at once when the
 * blocks decline): started beside them it took the CPU they needed (at 1 M alerts, two words never
 * together: 9.5 ms for the blocks alone, 27 ms raced against the index's plan from the start).
 */
export const BLOCKS_BITMAP_HEDGE_MS = 50;

/**
 * Thrown by a race attempt that stands aside (it cannot answer this search well): the other attempts
 * go on, and if they all fail, the race rejects with their error rather than this one.
 */
export class AttemptDeclined extends Error {}

export type RaceAttempt<T> = {
  /** Planner settings for this attempt's transaction (SET LOCAL). */
  settings: Record<string, string>;
  /** The attempt's query; it may throw AttemptDeclined to stand aside. */
  run: (tx: Database) => Promise<T>;
  /** Start only if nothing has answered after this long (a hedge); at once when an attempt fails. */
  delayMs?: number;
};

/**
 * PostgreSQL only: runs the attempts, each in its own transaction on its own pooled connection with
 * its planner settings, and resolves with the first to succeed (its index and value, and whether
 * another attempt was still running). The others are cancelled with pg_cancel_backend; a delayed
 * attempt that has not started by then never starts. A cancel may only reach the query it was meant
 * for: a losing attempt keeps its connection (and so its backend) until the cancelling is over,
 * cancels go only to attempts whose query is still running, never to the winner's backend (back in
 * the pool at once), and a cancel that lands between statements is ignored by PostgreSQL.
 * Rejects with the first error when every attempt fails.
 */
export async function raceTransactions<T>(
  db: Database,
  attempts: RaceAttempt<T>[],
): Promise<{ index: number; value: T; othersPending: boolean }> {
  const racers = attempts.map(() => {
    let queryEnded!: () => void;
    const stopped = new Promise<void>((r) => {
      queryEnded = r;
    });
    return { pid: null as number | null, started: false, running: false, done: false, stopped, queryEnded };
  });
  const timers: ReturnType<typeof setTimeout>[] = [];
  let winner: number | null = null;
  let releaseLosers!: () => void;
  const losersMayRelease = new Promise<void>((r) => {
    releaseLosers = r;
  });

  const cancelLosers = async () => {
    try {
      for (let tries = 0; tries < CANCEL_TRIES; tries++) {
        // Never the winner: its backend goes back to the pool (and to other requests) at once.
        const running = racers.filter((r, i) => i !== winner && r.running && r.pid !== null);
        if (running.length === 0) return;
        await db.execute(
          sql`SELECT pg_cancel_backend(pid) FROM unnest(${arrayLiteral(running.map((r) => r.pid!))}::int[]) AS pid`,
        );
        await Promise.race([
          Promise.all(running.map((r) => r.stopped)),
          new Promise((r) => setTimeout(r, CANCEL_RETRY_MS)),
        ]);
      }
    } finally {
      releaseLosers();
    }
  };

  return new Promise((resolve, reject) => {
    const errors: unknown[] = [];
    const start = (index: number) => {
      const racer = racers[index]!;
      if (racer.started || winner !== null) return;
      racer.started = true;
      clearTimeout(timers[index]);
      const attempt = attempts[index]!;
      db.transaction(async (tx) => {
        const result = await tx.execute(
          sql`SELECT pg_backend_pid() AS pid${sql.join(
            setConfigs(attempt.settings).map((c) => sql`, ${c}`),
            sql``,
          )}`,
        );
        racer.pid = Number((result as unknown as { rows: { pid: number }[] }).rows[0]!.pid);
        if (winner !== null) return;
        racer.running = true;
        try {
          const value = await attempt.run(tx);
          if (winner === null) {
            winner = index;
            for (const t of timers) clearTimeout(t);
            const othersPending = racers.some((r, i) => i !== index && r.started && !r.done);
            void cancelLosers().catch(() => {}); // a loser left running only costs time
            resolve({ index, value, othersPending });
          }
        } finally {
          racer.running = false;
          racer.queryEnded();
          // A loser keeps its backend until the cancelling is over; one that ends before any winner
          // exists can go at once (cancels only ever target attempts still running).
          if (winner !== null && winner !== index) await losersMayRelease;
        }
      })
        .catch((err: unknown) => {
          errors.push(err);
          if (winner !== null) return;
          // A failure lets a hedge that is still waiting start now.
          const waiting = racers.findIndex((r) => !r.started);
          if (waiting >= 0) start(waiting);
          else if (racers.every((r) => r.done || r === racer)) {
            releaseLosers();
            // A declined attempt only stood aside: any other error tells more.
            reject(errors.find((e) => !(e instanceof AttemptDeclined)) ?? errors[0]);
          }
        })
        .finally(() => {
          racer.done = true;
        });
    };
    attempts.forEach((attempt, index) => {
      if (attempt.delayMs) timers[index] = setTimeout(() => start(index), attempt.delayMs);
      else start(index);
    });
  });
}

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
type PageConditions = {
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
 * (which walks alerts_sent_idx anyway) keeps the plain query; so does PGlite, which has one connection
 * and races nothing, except for common words together: the newest alerts, then the index's plan.
 */
async function pageRows(
  db: Database,
  conditions: PageConditions,
  limit: number,
  terms: "none" | "some" | "together",
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
  if (options.engine !== "postgres" || plan === "plain" || (terms === "none" && plan === "auto")) {
    options.onPlan?.("plain", { cancelled: false });
    return query(db);
  }
  if (plan === "auto" && terms === "together" && options.strategy !== "timeout" && !options.firstAttempt) {
    // With the word blocks: they first, the walk after TOGETHER_WALK_HEDGE_MS, the index's plan when
    // the blocks decline (a failure starts the first attempt still waiting, in this order) or after
    // BLOCKS_BITMAP_HEDGE_MS.
    const plans = conditions.blocks ? (["blocks", "bitmap", "walk"] as const) : (["bitmap", "walk"] as const);
    const delays = {
      blocks: 0,
      walk: options.hedgeMs ?? TOGETHER_WALK_HEDGE_MS,
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
    !terms.length ? "none" : searched.together ? "together" : "some",
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

/** Every agency each alert was paged to (through its capcodes), by alert id. */
export async function recipientAgenciesByAlert(
  db: Database,
  alertIds: number[],
): Promise<Map<number, number[]>> {
  const byAlert = new Map<number, number[]>();
  for (const [alertId, recipients] of await recipientsByAlert(db, alertIds))
    byAlert.set(
      alertId,
      recipients.map((r) => r.agencyId),
    );
  return byAlert;
}

/** Every recipient (capcode and its agency) of each alert, by alert id. */
export async function recipientsByAlert(
  db: Database,
  alertIds: number[],
): Promise<Map<number, { agencyId: number; capcodeId: number }[]>> {
  const byAlert = new Map<number, { agencyId: number; capcodeId: number }[]>();
  if (alertIds.length === 0) return byAlert;
  const recipients = await db
    .select({
      alertId: alertRecipients.alertId,
      agencyId: alertRecipients.agencyId,
      capcodeId: alertRecipients.capcodeId,
    })
    .from(alertRecipients)
    .where(inArray(alertRecipients.alertId, alertIds));
  for (const { alertId, ...r } of recipients) byAlert.set(alertId, [...(byAlert.get(alertId) ?? []), r]);
  return byAlert;
}

/** The units an alert's recipients serve, within `agencyIds` (null: any agency), each once, by name. */
export function unitsOf(
  recipients: readonly { capcodeId: number }[],
  unitsOfCapcode: ReadonlyMap<number, readonly AlertUnit[]>,
  agencyIds: readonly number[] | null,
): AlertUnit[] {
  const found = new Map<number, AlertUnit>();
  for (const r of recipients)
    for (const unit of unitsOfCapcode.get(r.capcodeId) ?? [])
      if (agencyIds === null || agencyIds.includes(unit.agencyId)) found.set(unit.id, unit);
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Presents alerts as this viewer sees them, dropping any the viewer may not read. For a message paged
 * to several agencies, the agency shown is the viewer's own (the primary one for admins in admin scope).
 */
export async function presentForViewer(
  db: Database,
  rows: AlertRow[],
  scope: Scope,
): Promise<PresentedAlert[]> {
  if (rows.length === 0) return [];
  // Recipients, units and agencies in one round trip (page-context.ts).
  const { recipients, unitsOfCapcode, agencies: agencyRows } = await pageContext(db, rows);
  const chosen = new Map<number, number>();
  for (const row of rows) {
    const ids = recipients.get(row.id)?.map((r) => r.agencyId) ?? [row.agencyId];
    const agencyId = scope.all
      ? ids.includes(row.agencyId)
        ? row.agencyId
        : ids[0]
      : ids.filter((id) => scope.agencyIds.includes(id)).sort((a, b) => a - b)[0];
    if (agencyId !== undefined) chosen.set(row.id, agencyId);
  }
  const viewerAgencies = scope.all ? null : scope.agencyIds;
  return rows
    .filter((r) => chosen.has(r.id))
    .map((r) =>
      presentAlert(
        r,
        agencyRows.get(chosen.get(r.id)!),
        unitsOf(recipients.get(r.id) ?? [], unitsOfCapcode, viewerAgencies),
      ),
    );
}

/** SPEC 3 'Alert group'. */
function toGroup(jobNumber: string | null, messages: PresentedAlert[]) {
  const oldestFirst = [...messages].sort(
    (a, b) => Date.parse(a.sent_at) - Date.parse(b.sent_at) || a.id - b.id,
  );
  const primary = oldestFirst.find((m) => m.type === "emergency") ?? oldestFirst[0]!;
  return {
    job_number: jobNumber,
    group_id: primary.group_id,
    messages: oldestFirst,
    primary_message: primary,
    has_emergency: oldestFirst.some((m) => m.type === "emergency"),
    total_count: oldestFirst.length,
    is_grouped: oldestFirst.length > 1,
  };
}

/** Folds a page into groups, each at the position of its newest message, with every readable message of the job. */
async function groupPage(db: Database, page: PresentedAlert[], scope: Scope) {
  const groupIds = [...new Set(page.map((a) => a.group_id).filter((g): g is number => g !== null))];
  const members = groupIds.length
    ? await db
        .select()
        .from(alerts)
        .where(inArray(alerts.groupId, groupIds))
        .orderBy(asc(alerts.sentAt), asc(alerts.id))
    : [];
  const presentedMembers = await presentForViewer(db, members, scope);
  const byGroup = new Map<number, PresentedAlert[]>();
  for (const m of presentedMembers) byGroup.set(m.group_id!, [...(byGroup.get(m.group_id!) ?? []), m]);
  const seen = new Set<number>();
  const out: ReturnType<typeof toGroup>[] = [];
  for (const alert of page) {
    if (alert.group_id === null) {
      out.push(toGroup(alert.job_number, [alert]));
    } else if (!seen.has(alert.group_id)) {
      seen.add(alert.group_id);
      out.push(toGroup(alert.job_number, byGroup.get(alert.group_id) ?? [alert]));
    }
  }
  return out;
}
