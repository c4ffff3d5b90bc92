import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";

/** A term is rare (termConditions) when its words are in under this share of the alerts. */
export const RARE_TERM_SHARE = 0.01;

/**
 * A rare term is sparse when its words are in under this share of the alerts (1,000 of 1 M): the word
 * index reads its few rows in a few milliseconds, and the planner, reading the same statistics, knows
 * it, so its own plan runs alone (pageRows) without a race's transactions around it.
 */
export const SPARSE_TERM_SHARE = 0.001;

/**
 * The share of alerts that hold any of each term's words (an upper bound: the sum of the words' shares),
 * from the statistics ANALYZE keeps on the word index's expression (most common elements, ~1,000 of
 * them; a word not among them is rarer than all of those). Undefined for a term without words, and for
 * every term when there are no statistics yet. The statistics are read at most every
 * WORD_SHARES_TTL_MS per database (reading pg_stats takes ~5 ms at 10 M alerts).
 */
export async function termShares(
  db: Database,
  termWords: (string[] | undefined)[],
): Promise<(number | undefined)[]> {
  const shares = await commonWordShares(db);
  if (!shares) return termWords.map(() => undefined);
  return termWords.map((words) => words?.reduce((sum, w) => sum + (shares.get(w) ?? 0), 0));
}

const WORD_SHARES_TTL_MS = 10 * 60_000;
const wordShares = new WeakMap<Database, { at: number; shares: Promise<Map<string, number> | null> }>();

/** commonWordShares, read at most every WORD_SHARES_TTL_MS per database. */
export function commonWordShares(db: Database): Promise<Map<string, number> | null> {
  const cached = wordShares.get(db);
  if (cached && Date.now() - cached.at < WORD_SHARES_TTL_MS) return cached.shares;
  const shares = readWordShares(db);
  wordShares.set(db, { at: Date.now(), shares });
  // A failed read is not kept: the next search tries again.
  shares.catch(() => wordShares.delete(db));
  return shares;
}

/**
 * The share of alerts holding each of the most common words, from ANALYZE's statistics on the word
 * index's expression (most_common_elems); null before the first ANALYZE of alerts.
 */
export async function readWordShares(db: Database): Promise<Map<string, number> | null> {
  const result = (await db.execute(sql`
    SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs AS shares FROM pg_stats s
     WHERE s.schemaname = current_schema() AND s.tablename = 'alerts_agency_ids_words_idx'
       AND s.most_common_elems IS NOT NULL`)) as unknown as {
    rows: { words: string[]; shares: number[] }[];
  };
  const row = result.rows[0];
  if (!row) return null;
  return new Map(row.words.map((w, i) => [w, Number(row.shares[i])]));
}
