import { type SQL, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../../db/client.js";
import { arrayLiteral, rowsOf } from "../../db/rows.js";
import { alerts, WORD_BLOCK_SIZE } from "../../db/schema.js";
import { PollingLoop } from "../../support/polling-loop.js";
import { RARE_TERM_SHARE, readWordShares } from "./word-shares.js";

// Word blocks (migration 0021): for each common word, one bit per alert, in blocks of WORD_BLOCK_SIZE
// alert ids. A search for common words that the planner cannot tell apart from words found together
// ANDs their bits first: when few alerts can hold every word (none, for two words never found
// together), the page is read from those alerts alone.

/**
 * A block is sealed once an alert above it was created this long ago. An alert's id is taken when it
 * is inserted, so every lower id was taken before; an ingest transaction is over in milliseconds, so
 * none that took an id in a sealed block can still be open, and the block's bits never change.
 */
export const SEAL_AFTER_MS = 5 * 60_000;

/**
 * Blocks filled per cycle of the sealer, in one transaction (~100 ms a block at 10 M alerts on
 * PostgreSQL); a cycle with more to do asks for another. Small, because the embedded database has one
 * connection: every other query waits for the cycle.
 */
const BLOCKS_PER_CYCLE = 8;

/** How often the sealer looks for blocks to seal. */
const SEAL_POLL_MS = 60_000;

/** The alerts that can hold every term of a search (blockCandidates): these ids, and every id from `from` on. */
export type Candidates = { ids: number[]; from: number };

/**
 * blockCandidates declines when more ids than this are above the blocks its words have filled (a word
 * that became common is filled from the oldest block up; the sealer is behind a burst of ingest):
 * normally the block being written, the sealer's margin of one block and the last SEAL_AFTER_MS of alerts.
 */
export const MAX_UNFILLED_IDS = 3 * WORD_BLOCK_SIZE;

/** A search reads its page from the blocks' candidates when there are at most this many. */
export const MAX_BLOCK_CANDIDATES = 2_000;

/**
 * Fills the word blocks one step: adds the words now common (a share of the alerts of at least
 * RARE_TERM_SHARE by the word index's statistics) to the kept words, then writes the bits of up to
 * `maxBlocks` sealed blocks for the kept words that lack them, oldest block first, in one transaction
 * under an advisory lock (none when another instance holds it). Writing a block again gives the same
 * bits. `pending` when sealed blocks are left for the next call.
 */
export async function sealWordBlocks(
  db: Database,
  options: { sealAfterMs?: number; maxBlocks?: number } = {},
): Promise<{ filled: number; pending: boolean }> {
  const shares = await readWordShares(db);
  const common = [...(shares ?? new Map<string, number>())]
    .filter(([, share]) => share >= RARE_TERM_SHARE)
    .map(([word]) => word);
  if (common.length) {
    await db.execute(sql`
      INSERT INTO word_block_words (word) SELECT unnest(${arrayLiteral(common)}::text[])
      ON CONFLICT (word) DO NOTHING`);
  }
  const sealAfterMs = options.sealAfterMs ?? SEAL_AFTER_MS;
  const [newest] = rowsOf<{ id: number | string }>(
    await db.execute(sql`
      SELECT id FROM alerts WHERE created_at <= now() - ${sealAfterMs} * interval '1 millisecond'
       ORDER BY created_at DESC NULLS LAST, id DESC NULLS LAST LIMIT 1`),
  );
  if (!newest) return { filled: 0, pending: false };
  // Every block below the newest settled alert's own is whole; one block more is left as a margin (an
  // alert's created_at is its transaction's start, a little before it takes its id). The ORDER BY is
  // alerts_created_idx's own, NULLS LAST included: with the default NULLS FIRST it sorted 10 M rows, 1.6 s.
  const sealedBelow = Math.floor(Number(newest.id) / WORD_BLOCK_SIZE) - 1;
  const kept = rowsOf<{ word: string; filled_below: number }>(
    await db.execute(
      sql`SELECT word, filled_below FROM word_block_words WHERE filled_below < ${sealedBelow}`,
    ),
  );
  if (!kept.length) return { filled: 0, pending: false };
  const first = Math.min(...kept.map((w) => Number(w.filled_below)));
  const end = Math.min(sealedBelow, first + (options.maxBlocks ?? BLOCKS_PER_CYCLE));
  // One transaction, and one instance at a time: another instance's sealer holding the lock is at the
  // same blocks, so this one leaves them to it (its next poll finds them filled).
  const filled = await db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(
      await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtext(${SEALER_LOCK})) AS locked`),
    );
    if (!lock?.locked) return 0;
    for (let block = first; block < end; block++) {
      const words = kept.filter((w) => Number(w.filled_below) <= block).map((w) => w.word);
      await fillBlock(tx, block, words);
    }
    return end - first;
  });
  // Marks the new rows all-visible, so that searches read the bits from the index alone (migration 0021).
  if (filled > 0) await db.execute(sql`VACUUM word_blocks`);
  return { filled, pending: filled > 0 && end < sealedBelow };
}

/** The advisory lock a sealer holds while it fills blocks. */
export const SEALER_LOCK = "turnout.word-blocks.seal";

/** Writes the bits of `words` in one block (the rows of the words it holds) and marks the block filled. */
async function fillBlock(tx: Database, block: number, words: string[]): Promise<void> {
  const base = block * WORD_BLOCK_SIZE;
  const size = sql.raw(String(WORD_BLOCK_SIZE));
  // IN (a set) is a hash look-up per word of each message, where = ANY(array) compares with each.
  await tx.execute(sql`
    INSERT INTO word_blocks (word, block, bits)
    SELECT w, ${block}, bit_or(set_bit(repeat('0', ${size})::bit(${size}), (a.id - ${base})::int, 1))
      FROM alerts a, unnest(string_to_array(lower(a.message), ' ')) AS w
     WHERE a.id >= ${base} AND a.id < ${base + WORD_BLOCK_SIZE}
       AND w IN (SELECT unnest(${arrayLiteral(words)}::text[]))
     GROUP BY w
    ON CONFLICT (word, block) DO UPDATE SET bits = excluded.bits`);
  await tx.execute(sql`
    UPDATE word_block_words SET filled_below = greatest(filled_below, ${block + 1})
     WHERE word = ANY(${arrayLiteral(words)}::text[])`);
}

/**
 * The alerts that can hold every term, read from the word blocks: each term is one or more words (the
 * words that contain it, termConditions), and an alert can hold the term when it holds one of them. A
 * term counts only when every one of its words is kept; with fewer than two such terms, null (one
 * common term alone has too many alerts). The candidates are the ids whose bit is set for every counted
 * term in the blocks that all their words have filled, and every id from `from` on (blocks not sealed
 * or not filled yet: the page's own checks decide there). Null too when there are more than
 * MAX_BLOCK_CANDIDATES (the other plans are quick when the words are often found together) or more
 * than MAX_UNFILLED_IDS ids from `from` on.
 */
export async function blockCandidates(db: Database, termWords: string[][]): Promise<Candidates | null> {
  const words = [...new Set(termWords.flat())];
  const filled = new Map(
    rowsOf<{ word: string; filled_below: number }>(
      await db.execute(sql`
        SELECT word, filled_below FROM word_block_words WHERE word = ANY(${arrayLiteral(words)}::text[])`),
    ).map((w) => [w.word, Number(w.filled_below)]),
  );
  const counted = termWords.filter((term) => term.every((w) => filled.has(w)));
  if (counted.length < 2) return null;
  const below = Math.min(...counted.flat().map((w) => filled.get(w)!));
  if (below === 0) return null;
  // Every alert above the filled blocks is read and checked: too many while a word is still filling.
  const [newest] = rowsOf<{ id: number | string | null }>(
    await db.execute(sql`SELECT max(id) AS id FROM alerts`),
  );
  if (Number(newest?.id ?? 0) - below * WORD_BLOCK_SIZE > MAX_UNFILLED_IDS) return null;
  // Per term its words' bits by block (one word: its rows as they are; more: OR-ed), the terms joined
  // on the block and AND-ed: a block missing a term's words has no match. A join of index-only scans,
  // not an aggregate over every row: at 10 M alerts two words took 6 ms so, 29 ms grouped by term.
  const terms = counted.map((words, i) => {
    const alias = sql.raw(`t${i}`);
    return words.length === 1
      ? sql`(SELECT block, bits FROM word_blocks WHERE word = ${words[0]} AND block < ${below}) ${alias}`
      : sql`(SELECT block, bit_or(bits) AS bits FROM word_blocks
              WHERE word = ANY(${arrayLiteral(words)}::text[]) AND block < ${below} GROUP BY block) ${alias}`;
  });
  const anded = sql.join(
    counted.map((_, i) => sql.raw(`t${i}.bits`)),
    sql` & `,
  );
  const result = rowsOf<{ block: number | null; bits: string | null; total: number | string }>(
    await db.execute(sql`
      WITH hits AS MATERIALIZED (
        SELECT block, ${anded} AS bits
          FROM ${terms[0]} ${sql.join(
            terms.slice(1).map((t) => sql`JOIN ${t} USING (block)`),
            sql` `,
          )}
         WHERE bit_count(${anded}) > 0
      ), total AS (
        SELECT coalesce(sum(bit_count(bits)), 0) AS n FROM hits
      )
      SELECT h.block, h.bits::text AS bits, total.n AS total
        FROM total LEFT JOIN hits h ON total.n <= ${MAX_BLOCK_CANDIDATES}`),
  );
  if (Number(result[0]?.total ?? 0) > MAX_BLOCK_CANDIDATES) return null;
  const ids: number[] = [];
  for (const { block, bits } of result) {
    if (block === null || bits === null) continue;
    for (let i = bits.indexOf("1"); i !== -1; i = bits.indexOf("1", i + 1)) {
      ids.push(Number(block) * WORD_BLOCK_SIZE + i);
    }
  }
  return { ids, from: below * WORD_BLOCK_SIZE };
}

/** The search condition of blockCandidates' answer: the alert is a candidate or above the filled blocks. */
export function isCandidate(candidates: Candidates): SQL {
  return sql`(${alerts.id} = ANY(${arrayLiteral(candidates.ids)}::bigint[]) OR ${alerts.id} >= ${candidates.from})`;
}

/** Runs sealWordBlocks in the background: every SEAL_POLL_MS, and at once again while blocks are left. */
export class WordBlockSealer {
  private readonly loop: PollingLoop;

  constructor(options: { db: Database; logger: Logger; pollMs?: number }) {
    this.loop = new PollingLoop({
      pollMs: options.pollMs ?? SEAL_POLL_MS,
      logger: options.logger,
      failureMessage: "word blocks: sealing failed",
      cycle: async () => {
        const { pending } = await sealWordBlocks(options.db);
        if (pending) this.loop.kick();
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
