// Search terms to SQL conditions: the word prefilter (search_words, agency-qualified words) and the text checks.
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencyWordsExpression, alerts, searchWords, searchWordsExpression } from "../../db/schema.js";
import { isQueryCanceled } from "./race.js";
import type { SearchOptions } from "./search-plans.js";
import { RARE_TERM_SHARE, SPARSE_TERM_SHARE, termShares } from "./word-shares.js";

/** A term's words (termConditions) serve it when at most this many words contain it. */
export const MAX_TERM_WORDS = 64;

/**
 * The search condition of each term (ILIKE patterns), served by the word index where it can be (migration
 * 0016). Words are the message's lower-cased pieces between spaces; a term holds no space, so a message
 * contains it exactly when one of its words does, and search_words holds every word of every alert. So
 * `words && ARRAY[the words that contain the term]` keeps every alert that contains the term, and lets the
 * GIN index over (agency_ids, words) read one posting list per word, already within the viewer's agencies;
 * the ILIKE beside it still decides, written `(… ILIKE …) IS TRUE` (the same value: message is never null)
 * so that the planner cannot also read the trigram index for the term and intersect the two (at 10 M
 * alerts the trigram side of such a BitmapAnd took 16-56 ms for a rare word, the word side 0.02-1.6 ms).
 * The words are matched with the same pattern, lower-cased by the database as ILIKE lower-cases. A term
 * inside more than MAX_TERM_WORDS words (e.g. a few digits: inside every job number), shorter than three
 * characters (search_words' trigram index cannot look it up) or whose look-up `options.quick` cancels
 * (QUICK_STATEMENT_MS: trigrams in very many words) keeps the plain ILIKE that the trigram index serves.
 * Null when some term is in no word at all: no alert contains it. `together` is true for two or more terms
 * that the word index serves, none of them rare: how often such words occur together is what the planner
 * cannot tell (pageRows then races the index's plan and the walk whatever the planner thinks); `words`
 * then holds each term's words, for the word blocks (blockCandidates), and is empty otherwise. `sparse`:
 * some term's words are in under SPARSE_TERM_SHARE of the alerts (pageRows runs the planner's plan alone).
 * Searching inside `scopeAgencies` (up to MAX_QUALIFIED_AGENCIES; null: every agency), a served term reads
 * the agency-qualified words instead ('12:fire', alerts_agency_words_idx), so only those agencies' posting
 * lists; `qualified` says so, and the caller's agency condition is then only checked, never read from an
 * index (the qualified words already are the scope: an index intersecting the agencies' entries again
 * would cost what this saves).
 */
export async function termConditions(
  db: Database,
  patterns: string[],
  options: Pick<SearchOptions, "quick" | "words">,
  scopeAgencies: number[] | null = null,
): Promise<{
  conditions: SQL[];
  together: boolean;
  sparse: boolean;
  qualified: boolean;
  words: string[][];
} | null> {
  const unserved = {
    conditions: patterns.map(containsPattern),
    together: false,
    sparse: false,
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
    found = await lookUpAll(options.quick ?? db);
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
  const sparse = share.some((x) => x !== undefined && x < SPARSE_TERM_SHARE);
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
  return {
    conditions,
    together,
    sparse,
    qualified,
    words: together ? served.map((w) => w!.map((x) => x.word)) : [],
  };
}

/** The message contains the ILIKE pattern: the one text check every search term gets. */
export function containsPattern(pattern: string): SQL {
  return sql`${alerts.message} ILIKE ${pattern}`;
}

/** containsPattern written so that no index can serve it (`IS TRUE`: the same value, message is never null). */
export function checkedPattern(pattern: string): SQL {
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
