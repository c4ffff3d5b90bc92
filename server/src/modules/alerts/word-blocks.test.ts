import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngine } from "../../../test/build-app.js";
import { createUser } from "../../../test/factories.js";
import type { DatabaseHandle } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";
import { WORD_BLOCK_SIZE } from "../../db/schema.js";
import type { Actor } from "../../shared/guard.js";
import type { SearchOptions, SearchPlan } from "./search-plans.js";
import { searchAlerts } from "./service.js";
import {
  blockCandidates,
  MAX_BLOCK_CANDIDATES,
  MAX_UNFILLED_IDS,
  SEALER_LOCK,
  sealWordBlocks,
} from "./word-blocks.js";

// The word blocks (migration 0021) may only narrow a search of common words to the alerts that can hold
// them all: every search here must return the same pages and cursors with them as without them, on
// PGlite and on PostgreSQL, for alerts in sealed blocks and above them.

const engine = testEngine === "postgres" ? "postgres" : "pglite";
let handle: DatabaseHandle;
const admin: Actor = { userId: 0, sessionId: "00000000-0000-0000-0000-000000000000", isAdmin: true };
let member: Actor;
const AGENCIES = 10;

/** Inserts `count` alerts of `message` (with ` {n}` appended) at ids first, first + step, ... of agency n % AGENCIES. */
async function insertAlerts(message: string, first: number, count: number, step: number) {
  await handle.db.execute(sql`
    INSERT INTO alerts (id, type, raw_message, message, capcode, capcode_id, agency_id, agency_ids,
                        dedupe_hash, sent_at, created_at)
    SELECT ${first} + g * ${step}, 'emergency', m, m, c.capcode, c.id, c.agency_id, ARRAY[c.agency_id],
           md5(m || g), now() - (${first} + g * ${step}) * interval '1 second' * -1 - interval '1 day',
           now() - interval '1 hour'
      FROM generate_series(0, ${count - 1}) AS g,
           LATERAL (SELECT ${message} || ' ' || g AS m) AS t,
           LATERAL (SELECT * FROM capcodes WHERE capcode = 'WB' || (g % ${AGENCIES})) AS c`);
}

async function pages(actor: Actor, search: string, options: SearchOptions, limit = 3) {
  const plans: SearchPlan[] = [];
  const out: { ids: number[]; next: string | null }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await searchAlerts(
      handle.db,
      actor,
      { limit, search, adminContext: actor.isAdmin, cursor },
      { engine, onPlan: (plan) => plans.push(plan), ...options },
    );
    out.push({ ids: (r.data as { id: number }[]).map((a) => a.id), next: r.pagination.next_cursor });
    if (!r.pagination.next_cursor) break;
    cursor = r.pagination.next_cursor;
  }
  return { pages: out, plans };
}

const B = WORD_BLOCK_SIZE;

beforeAll(async () => {
  handle = await openTestDatabase();
  const db = handle.db;
  await db.execute(sql`
    INSERT INTO agencies (name, code) SELECT 'Blocks ' || n, 'WB' || n FROM generate_series(0, ${AGENCIES - 1}) n`);
  await db.execute(sql`
    INSERT INTO capcodes (capcode, agency_id) SELECT a.code, a.id FROM agencies a WHERE a.code LIKE 'WB%'`);
  // Blocks 0-3 sealed (the newest alert, an hour old, is in block 5; block 4 is the margin): two common words never together
  // but in block 2, a word in every alert, and one message holding both above the sealed blocks.
  await insertAlerts("STRUC1 HOUSE FIRE", 1, 600, 7);
  await insertAlerts("ALARC1 AFA FIRE", 2, 600, 7);
  await insertAlerts("ALARC2 AFA FIRE", 3, 600, 7); // "alarc": two kept words, their bits OR-ed
  await insertAlerts("STRUC1 ALARC1 SHED FIRE", 2 * B + 10, 4, 100);
  await insertAlerts("CHIMNEY FIRE", 4 * B + 1, 1, 1);
  await insertAlerts("STRUC1 ALARC1 LATE FIRE", 5 * B + 3, 1, 1);
  await db.execute(sql`ANALYZE alerts`);
  member = await createUser(
    { db },
    { agencyCodes: Array.from({ length: AGENCIES - 1 }, (_, n) => `WB${n}`) },
  ).then((u) => ({ userId: u.id, sessionId: admin.sessionId, isAdmin: false }));
}, 60_000);
afterAll(() => handle.close());

describe("the word blocks", () => {
  it("seal the blocks below the newest settled alert, a few at a time, with the bits of each kept word", async () => {
    expect(await sealWordBlocks(handle.db, { sealAfterMs: 0, maxBlocks: 3 })).toEqual({
      filled: 3,
      pending: true,
    });
    // The newest alert (block 5) was created an hour ago: blocks 0-3 are sealed (block 4 is the margin).
    expect(await sealWordBlocks(handle.db, { sealAfterMs: 0, maxBlocks: 3 })).toEqual({
      filled: 1,
      pending: false,
    });
    expect(await sealWordBlocks(handle.db, { sealAfterMs: 0 })).toEqual({ filled: 0, pending: false });
    const kept = rowsOf<{ word: string; filled_below: number }>(
      await handle.db.execute(sql`SELECT word, filled_below FROM word_block_words ORDER BY word`),
    );
    expect(kept.map((w) => w.word)).toEqual(
      expect.arrayContaining(["alarc1", "alarc2", "fire", "house", "struc1"]),
    );
    expect(kept.every((w) => Number(w.filled_below) === 4)).toBe(true);
    // Every bit is its alert's: the same rows as the words of the alerts of each block, from scratch.
    const differences = rowsOf<{ n: number }>(
      await handle.db.execute(sql`
        WITH expected AS (
          SELECT DISTINCT w AS word, (a.id / ${B})::int AS block, (a.id % ${B})::int AS bit
            FROM alerts a, unnest(string_to_array(lower(a.message), ' ')) AS w
           WHERE w IN (SELECT word FROM word_block_words) AND a.id < 4 * ${B}
        ), stored AS (
          SELECT b.word, b.block, i AS bit FROM word_blocks b, generate_series(0, ${B - 1}) AS i
           WHERE get_bit(b.bits, i) = 1
        )
        SELECT count(*)::int AS n FROM ((TABLE expected EXCEPT TABLE stored) UNION ALL (TABLE stored EXCEPT TABLE expected)) d`),
    );
    expect(Number(differences[0]!.n)).toBe(0);
    // Nothing younger than the default five minutes: no block is sealed by the default.
    await insertAlerts("STRUC1 ALARC1 NOW FIRE", 7 * B, 1, 1);
    await handle.db.execute(sql`UPDATE alerts SET created_at = now() WHERE id = ${7 * B}`);
    expect((await sealWordBlocks(handle.db)).filled).toBe(0);
  });

  it("answer two common words from their few candidates, with the same pages as without them", async () => {
    for (const [actor, search] of [
      [admin, "struc1 alarc1"],
      [admin, "STRUC1 ALARC1 FIRE"],
      [admin, "struc alarc"],
      [admin, "struc1 larc"],
      [member, "struc1 alarc1"],
    ] as const) {
      const reference = await pages(actor, search, { words: false, blocks: false, plan: "plain" });
      expect((await pages(actor, search, { plan: "blocks" })).pages, search).toEqual(reference.pages);
      // Chosen by itself (on PostgreSQL it races the other plans: whichever answers, the same pages;
      // PGlite reads the newest alerts, then the index, never the blocks).
      const { pages: chosen, plans } = await pages(actor, search, {});
      expect(chosen, search).toEqual(reference.pages);
      if (engine === "pglite")
        expect(
          plans.every((p) => p === "recent" || p === "bitmap"),
          plans.join(),
        ).toBe(true);
    }
    // The candidates in sealed blocks and the alerts above them both count: block 2's four, the later two.
    const found = await pages(admin, "struc1 alarc1", {}, 10);
    expect(found.pages.flatMap((p) => p.ids).sort((a, b) => a - b)).toEqual([
      2 * B + 10,
      2 * B + 110,
      2 * B + 210,
      2 * B + 310,
      5 * B + 3,
      7 * B,
    ]);
  });

  it("leave words often found together, and terms with a word not kept, to the other plans", async () => {
    // HOUSE and FIRE: together in 600 alerts (fewer than MAX_BLOCK_CANDIDATES): blocks; with more, not.
    expect((await blockCandidates(handle.db, [["house"], ["fire"]]))?.ids.length).toBe(600);
    await insertAlerts("HOUSE FIRE MORE", 3 * B, MAX_BLOCK_CANDIDATES, 1);
    await sealWordBlocks(handle.db, { sealAfterMs: 0 });
    // Block 3 was sealed before these were written: rewrite every block, as a new database would.
    await handle.db.execute(sql`UPDATE word_block_words SET filled_below = 0`);
    if (engine === "postgres") {
      // Another instance's sealer at work (it holds the lock): this one leaves the blocks to it.
      await handle.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${SEALER_LOCK}))`);
        expect(await sealWordBlocks(handle.db, { sealAfterMs: 0 })).toEqual({ filled: 0, pending: false });
      });
    }
    await sealWordBlocks(handle.db, { sealAfterMs: 0, maxBlocks: 2 });
    // While filling, more than MAX_UNFILLED_IDS ids are above the filled blocks: not used yet.
    expect(7 * B - 2 * B).toBeGreaterThan(MAX_UNFILLED_IDS);
    expect(await blockCandidates(handle.db, [["struc1"], ["afa"]])).toBeNull();
    while ((await sealWordBlocks(handle.db, { sealAfterMs: 0 })).pending) {}
    expect(await blockCandidates(handle.db, [["house"], ["fire"]])).toBeNull();
    // "afa" is kept, "shed" (four alerts, rare) is not: shed counts for nothing, so one term is left.
    expect(await blockCandidates(handle.db, [["struc1"], ["shed"]])).toBeNull();
    expect(await blockCandidates(handle.db, [["struc1"], ["afa"]])).toEqual({ ids: [], from: 6 * B });
    const reference = await pages(admin, "house fire", { words: false, blocks: false, plan: "plain" });
    const { pages: got, plans } = await pages(admin, "house fire", {});
    expect(got).toEqual(reference.pages);
    expect(plans).not.toContain("blocks");
  });
});
