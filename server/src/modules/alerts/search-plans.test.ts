import { and, desc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngine } from "../../../test/build-app.js";
import type { DatabaseHandle } from "../../db/client.js";
import { alerts } from "../../db/schema.js";
import type { Actor } from "../../shared/guard.js";
import { AttemptDeclined, raceTransactions } from "./race.js";
import { HEDGE_MS, plannerPlan, type SearchOptions, type SearchPlan } from "./search-plans.js";
import { type SearchInput, searchAlerts } from "./service.js";
import { termConditions } from "./term-conditions.js";

// On PostgreSQL searchAlerts runs the planner's own plan, lets the trigram plan join it after a few ms
// and keeps the first answer; these tests prove every plan and every path returns the same pages,
// cursor included, and that the losing query is cancelled without touching anything else.

// PGlite only checks that it keeps the plain query, so it gets a smaller table.
const ALERTS = testEngine === "postgres" ? 30_000 : 3_000;
let handle: DatabaseHandle;
let admin: Actor;
let oneAgency: Actor;
let twoAgencies: Actor;
/** A member of two agencies with a unit in the second (issue 26): the unit view's condition in every plan. */
let unitMember: Actor;

type Page = { ids: number[]; next: string | null };

async function pages(actor: Actor, input: Omit<SearchInput, "limit">, options: SearchOptions, count = 3) {
  const out: Page[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < count; i++) {
    const r = await searchAlerts(handle.db, actor, { limit: 20, ...input, cursor }, options);
    const next = r.pagination.next_cursor;
    out.push({ ids: (r.data as { id: number }[]).map((a) => a.id), next });
    if (!next) break;
    cursor = next;
  }
  return out;
}

beforeAll(async () => {
  handle = await openTestDatabase();
  const db = handle.db;
  // Three agencies, a capcode each; alert i is paged to agency (i % 3) and every 7th also to the next one.
  // Texts: FIRE in 40 %, STRUC1 / ALARC1 never together, RAREVILLE in 25, ODDTOWN in 0.5 %. Every 11th
  // was replayed late: paged 3 hours before it was received, so the feed's order is not the ids'.
  await db.execute(sql`
    INSERT INTO agencies (name, code) VALUES ('Plan A', 'PLAN-A'), ('Plan B', 'PLAN-B'), ('Plan C', 'PLAN-C')`);
  await db.execute(sql`
    INSERT INTO capcodes (capcode, agency_id)
    SELECT '09' || lpad(a.id::text, 5, '0'), a.id FROM agencies a WHERE a.code LIKE 'PLAN-%'`);
  await db.execute(sql`
    INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, dedupe_hash, sent_at, created_at)
    SELECT 'emergency', m, m, c.capcode, c.id, c.agency_id, md5(m),
           now() - (${ALERTS} - i) * interval '1 minute' - (i % 11 = 0)::int * interval '3 hours',
           now() - (${ALERTS} - i) * interval '1 minute'
      FROM generate_series(1, ${ALERTS}) AS i
      CROSS JOIN LATERAL (
        SELECT 'ALERT F25' || lpad(i::text, 7, '0') || ' ' ||
          CASE WHEN i % 5 < 2 THEN 'STRUC1 HOUSE FIRE' WHEN i % 5 = 2 THEN 'ALARC1 AFA' ELSE 'RESCC1 MVA' END ||
          ' ' || (i * 7919 % 1000) || ' HIGH ST ' ||
          CASE WHEN i % 1200 = 7 THEN 'RAREVILLE' WHEN i % 200 = 3 THEN 'ODDTOWN' ELSE 'SOMEVILLE' END AS m
      ) t
      JOIN (SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, capcode, agency_id FROM capcodes
             WHERE capcode LIKE '09%') c ON c.k = i % 3
     ORDER BY i`);
  await db.execute(sql`
    INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
    SELECT a.id, a.capcode_id, a.agency_id FROM alerts a
    UNION ALL
    SELECT a.id, c.id, c.agency_id FROM alerts a
      JOIN capcodes c ON c.capcode LIKE '09%' AND c.id <> a.capcode_id
     WHERE a.id % 7 = 0 AND c.agency_id = (SELECT min(agency_id) FROM capcodes WHERE capcode LIKE '09%'
                                              AND agency_id > a.agency_id)`);
  await db.execute(sql`ANALYZE`);
  const agencyIds = (
    (await db.execute(sql`SELECT id FROM agencies WHERE code LIKE 'PLAN-%' ORDER BY id`)) as unknown as {
      rows: { id: number }[];
    }
  ).rows.map((r) => Number(r.id));
  const user = async (isAdmin: boolean, ids: number[]) => {
    const r = (await db.execute(
      sql`INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
          VALUES ('Plan', 'Tester', ${`+6149${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`}, ${isAdmin}, true, true)
          RETURNING id`,
    )) as unknown as { rows: { id: number }[] };
    const userId = Number(r.rows[0]!.id);
    for (const id of ids)
      await db.execute(sql`INSERT INTO user_agencies (user_id, agency_id) VALUES (${userId}, ${id})`);
    return { userId, sessionId: "00000000-0000-0000-0000-000000000000", isAdmin };
  };
  admin = await user(true, []);
  oneAgency = await user(false, [agencyIds[2]!]);
  twoAgencies = await user(false, [agencyIds[0]!, agencyIds[1]!]);
  unitMember = await user(false, [agencyIds[0]!, agencyIds[1]!]);
  await db.execute(sql`
    WITH u AS (INSERT INTO units (agency_id, name) VALUES (${agencyIds[1]!}, 'Plan unit') RETURNING id)
    INSERT INTO unit_capcodes (unit_id, capcode_id)
    SELECT u.id, c.id FROM u, capcodes c WHERE c.agency_id = ${agencyIds[1]!}`);
  await db.execute(sql`
    INSERT INTO user_units (user_id, unit_id) SELECT ${unitMember.userId}, id FROM units WHERE name = 'Plan unit'`);
}, 120_000);
afterAll(() => handle.close());

/** The page query of an admin search (no scope): every term an ILIKE, newest first. */
const pageQuery = (search: string) =>
  handle.db
    .select()
    .from(alerts)
    .where(and(...search.split(" ").map((t) => sql`${alerts.message} ILIKE ${`%${t}%`}`)))
    .orderBy(desc(alerts.sentAt), desc(alerts.id))
    .limit(51);

const searches = [
  "fire",
  "RAREVILLE",
  "fire rareville",
  "struc1 house fire",
  "struc1 alarc1",
  "oddtown",
  "high st someville mva",
];

/** Whether termConditions finds the search's terms common words that the word index serves. */
async function together(search: string): Promise<boolean> {
  const terms = search.split(" ").map((t) => `%${t}%`);
  return (await termConditions(handle.db, terms, { quick: handle.quick }))!.together;
}

/** A search with a sparse term (termConditions) runs the planner's plan alone. */
async function sparse(search: string): Promise<boolean> {
  const terms = search.split(" ").map((t) => `%${t}%`);
  return (await termConditions(handle.db, terms, { quick: handle.quick }))!.sparse;
}

describe.skipIf(testEngine !== "postgres")("search plans on PostgreSQL", () => {
  it("returns the same pages and cursors from the walk, the trigram plan, the planner's own and auto", async () => {
    const scopes = [
      { actor: admin, adminContext: true },
      { actor: oneAgency, adminContext: false },
      { actor: twoAgencies, adminContext: false },
      { actor: unitMember, adminContext: false },
    ];
    for (const { actor, adminContext } of scopes) {
      for (const search of searches) {
        const input = { search, adminContext };
        const walk = await pages(actor, input, { engine: "postgres", plan: "walk" });
        const bitmap = await pages(actor, input, { engine: "postgres", plan: "bitmap" });
        const plain = await pages(actor, input, { engine: "postgres", plan: "plain" });
        const auto = await pages(actor, input, { engine: "postgres" });
        // Both plans at once (the other plan chosen with EXPLAIN): either may answer each page.
        const hedgeAtOnce = await pages(actor, input, { engine: "postgres", hedgeMs: 0, walkHedgeMs: 0 });
        const timeout = await pages(actor, input, { engine: "postgres", strategy: "timeout" });
        // A first attempt cancelled at once: the trigram plan answers every page.
        const fallback = await pages(actor, input, {
          engine: "postgres",
          strategy: "timeout",
          firstAttempt: "walk",
          timeoutMs: 1,
        });
        expect(bitmap, `${search} (bitmap)`).toEqual(walk);
        expect(plain, `${search} (plain)`).toEqual(walk);
        expect(auto, `${search} (auto)`).toEqual(walk);
        expect(hedgeAtOnce, `${search} (auto, hedge at once)`).toEqual(walk);
        expect(timeout, `${search} (timeout)`).toEqual(walk);
        expect(fallback, `${search} (fallback)`).toEqual(walk);
      }
    }
    // The data is what the cases need: pages exist, and the exclusive pair finds nothing.
    const fire = await pages(
      admin,
      { search: "fire", adminContext: true },
      { engine: "postgres", plan: "walk" },
    );
    expect(fire).toHaveLength(3);
    expect(fire.flatMap((p) => p.ids)).toHaveLength(60);
    const none = await pages(admin, { search: "struc1 alarc1", adminContext: true }, { engine: "postgres" });
    expect(none).toEqual([{ ids: [], next: null }]);
    // Four scopes by seven plans by seven searches (about 600 pages): ~8 s on an idle machine.
  }, 60_000);

  it("with the timeout strategy, answers with the planner's own plan in time, else with the trigram plan", async () => {
    const seen: { plan: SearchPlan; cancelled: boolean }[] = [];
    const onPlan: SearchOptions["onPlan"] = (plan, d) => seen.push({ plan, ...d });
    const input = { limit: 50, search: "fire", adminContext: true };
    const dense = await searchAlerts(handle.db, admin, input, {
      engine: "postgres",
      strategy: "timeout",
      timeoutMs: 10_000,
      onPlan,
    });
    expect(seen.pop()).toEqual({ plan: "planner", cancelled: false });
    expect(dense.data).toHaveLength(50);
    const walked = await searchAlerts(handle.db, admin, input, {
      engine: "postgres",
      strategy: "timeout",
      firstAttempt: "walk",
      timeoutMs: 10_000,
      onPlan,
    });
    expect(seen.pop()).toEqual({ plan: "walk", cancelled: false });
    expect(walked).toEqual(dense);

    // 0 results: a walk reads all 30,000 alerts, far longer than 1 ms; the trigram plan answers.
    const zero = { limit: 50, search: "struc1 alarc1", adminContext: true };
    const options = {
      engine: "postgres",
      strategy: "timeout",
      firstAttempt: "walk",
      timeoutMs: 1,
      onPlan,
    } as const;
    const cancelled = await searchAlerts(handle.db, admin, zero, options);
    expect(seen.pop()).toEqual({ plan: "bitmap", cancelled: true });
    expect(cancelled.data).toEqual([]);
    expect(cancelled.pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it("keeps the plan settings and the timeout inside the search's transactions", async () => {
    const input = { limit: 20, search: "struc1 alarc1", adminContext: true };
    for (const firstAttempt of ["walk", "planner"] as const) {
      await Promise.all(
        [1, 2, 3].map(() =>
          searchAlerts(handle.db, admin, input, {
            engine: "postgres",
            strategy: "timeout",
            firstAttempt,
            timeoutMs: 1,
          }),
        ),
      );
    }
    await Promise.all([1, 2, 3].map(() => searchAlerts(handle.db, admin, input, { engine: "postgres" })));
    // A rare word: the planner reads the index and the walk waits to join, usually until it is too late.
    await Promise.all(
      [0, 1, 5, 20].map((walkHedgeMs) =>
        searchAlerts(
          handle.db,
          admin,
          { limit: 20, search: "rareville", adminContext: true },
          { engine: "postgres", hedgeMs: 0, walkHedgeMs },
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, 300)); // the race's loser is cancelled in the background
    // Several at once, so they run on several of the pool's connections.
    const settings = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const r = (await handle.db.execute(
          sql`SELECT current_setting('enable_bitmapscan') AS b, current_setting('enable_indexscan') AS i,
                     current_setting('enable_seqscan') AS s, current_setting('statement_timeout') AS t,
                     pg_sleep(0.01)::text AS z`,
        )) as unknown as { rows: { b: string; i: string; s: string; t: string }[] };
        return r.rows[0];
      }),
    );
    for (const row of settings) expect(row).toEqual({ b: "on", i: "on", s: "on", t: "0", z: "" });
  });

  it("races the planner's own plan and the other plan: the first answer wins", async () => {
    const seen: { plan: SearchPlan; cancelled: boolean }[] = [];
    const onPlan: SearchOptions["onPlan"] = (plan, d) => seen.push({ plan, ...d });
    for (const search of searches) {
      for (const hedgeMs of [HEDGE_MS, 0]) {
        // hedgeMs 0: both start at once, so either may answer.
        await searchAlerts(
          handle.db,
          admin,
          { limit: 50, search, adminContext: true },
          { engine: "postgres", onPlan, hedgeMs, walkHedgeMs: hedgeMs },
        );
        const chosen = await plannerPlan(handle.db, pageQuery(search));
        // Common words the word index serves race the index and the walk, whatever the planner thinks;
        // a sparse term's search is the planner's plan alone.
        const expected = (await together(search))
          ? ["walk", "bitmap"]
          : (await sparse(search))
            ? ["plain"]
            : ["planner", chosen === "walk" ? "bitmap" : "walk"];
        expect(expected, search).toContain(seen.pop()!.plan);
      }
    }
  });

  it("runs the planner's plan alone, outside a transaction, for a search with a sparse term", async () => {
    expect(await sparse("rareville")).toBe(true);
    expect(await sparse("fire rareville")).toBe(true);
    expect(await sparse("fire")).toBe(false);
    expect(await sparse("struc1 alarc1")).toBe(false);
    for (const search of ["rareville", "fire rareville"]) {
      const seen: SearchPlan[] = [];
      const page = await searchAlerts(
        handle.db,
        admin,
        { limit: 20, search, adminContext: true },
        { engine: "postgres", onPlan: (plan) => seen.push(plan) },
      );
      const reference = await searchAlerts(
        handle.db,
        admin,
        { limit: 20, search, adminContext: true },
        { engine: "postgres", plan: "walk" },
      );
      expect(seen, search).toEqual(["plain"]);
      expect(page, search).toEqual(reference);
      if (search === "rareville") expect(page.data.length).toBeGreaterThan(0);
    }
  });

  it("races the index and the walk for two or more common words the word index serves, and only then", async () => {
    expect(await together("struc1 house fire")).toBe(true);
    expect(await together("struc1 alarc1")).toBe(true);
    expect(await together("fire")).toBe(false); // one word: the planner estimates it well
    expect(await together("fire rareville")).toBe(false); // a rare word: its short list decides
    expect(await together("high st someville mva")).toBe(false); // "st" is too short for the words

    const seen: { plan: SearchPlan; cancelled: boolean }[] = [];
    const onPlan: SearchOptions["onPlan"] = (plan, d) => seen.push({ plan, ...d });
    for (const search of ["struc1 house fire", "struc1 alarc1"]) {
      const page = await searchAlerts(
        handle.db,
        admin,
        { limit: 20, search, adminContext: true },
        { engine: "postgres", onPlan },
      );
      const walk = await searchAlerts(
        handle.db,
        admin,
        { limit: 20, search, adminContext: true },
        { engine: "postgres", plan: "walk" },
      );
      expect(page, search).toEqual(walk);
      expect(["walk", "bitmap"], search).toContain(seen.pop()!.plan);
    }
  });

  it("tells which plan the planner chooses: the walk for a common word, the trigram index for a rare one", async () => {
    expect(await plannerPlan(handle.db, pageQuery("fire"))).toBe("walk");
    expect(await plannerPlan(handle.db, pageQuery("rareville"))).toBe("bitmap");
  });

  it("cancels the losing query and gives its connection back", async () => {
    const db = handle.db;
    const started = performance.now();
    const won = await raceTransactions(db, [
      {
        settings: { application_name: "race-slow" },
        run: (tx) => tx.execute(sql`SELECT pg_sleep(20) AS slow`),
      },
      { settings: {}, run: (tx) => tx.execute(sql`SELECT 42 AS fast`) },
    ]);
    expect(won.index).toBe(1);
    expect(won.othersPending).toBe(true);
    // The sleeper is cancelled within moments, not after 20 s, and its connection is free again.
    let sleeping = 1;
    for (let i = 0; i < 40 && sleeping > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const r = (await db.execute(
        sql`SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep(20)%'
               AND pid <> pg_backend_pid()`,
      )) as unknown as { rows: { n: number }[] };
      sleeping = Number(r.rows[0]!.n);
    }
    expect(sleeping).toBe(0);
    expect(performance.now() - started).toBeLessThan(5_000);
    const names = (await Promise.all(
      Array.from({ length: 8 }, () =>
        db.execute(sql`SELECT current_setting('application_name') AS a, pg_sleep(0.01)::text AS z`),
      ),
    )) as unknown as { rows: { a: string }[] }[];
    expect(names.map((r) => r.rows[0]!.a)).not.toContain("race-slow");
  });

  it("never cancels anything but a losing attempt, even with the pool busy with other queries", async () => {
    const db = handle.db;
    let stop = false;
    let others = 0;
    // Other requests keep every pooled connection busy (and some waiting), so a backend the race gives
    // back is running someone else's query a moment later.
    const background = Array.from({ length: 9 }, async () => {
      while (!stop) {
        await db.execute(sql`SELECT pg_sleep(0.02), count(*) FROM agencies`);
        others += 1;
      }
    });
    try {
      for (let i = 0; i < 30; i++) {
        const won = await raceTransactions(db, [
          { settings: {}, run: (tx) => tx.execute(sql`SELECT pg_sleep(0.001) AS quick`) },
          { settings: {}, run: (tx) => tx.execute(sql`SELECT pg_sleep(0.03) AS slow`) },
        ]);
        expect(won.index).toBe(0);
      }
    } finally {
      stop = true;
      await Promise.all(background); // rejects if a background query was cancelled
    }
    expect(others).toBeGreaterThan(0);
  });

  it("starts a hedge only when the first attempt is slow, and at once when it fails", async () => {
    const db = handle.db;
    let hedged = 0;
    const quick = await raceTransactions(db, [
      { settings: {}, run: (tx) => tx.execute(sql`SELECT 1 AS quick`) },
      {
        settings: {},
        delayMs: 200,
        run: (tx) => {
          hedged += 1;
          return tx.execute(sql`SELECT 2 AS hedge`);
        },
      },
    ]);
    expect(quick.index).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(hedged).toBe(0);

    const slow = await raceTransactions(db, [
      { settings: {}, run: (tx) => tx.execute(sql`SELECT pg_sleep(20) AS slow`) },
      { settings: {}, delayMs: 50, run: (tx) => tx.execute(sql`SELECT 2 AS hedge`) },
    ]);
    expect(slow.index).toBe(1);

    const started = performance.now();
    const failed = await raceTransactions(db, [
      { settings: {}, run: (tx) => tx.execute(sql`SELECT 1 / 0 AS boom`) },
      { settings: {}, delayMs: 10_000, run: (tx) => tx.execute(sql`SELECT 2 AS hedge`) },
    ]);
    expect(failed.index).toBe(1);
    expect(performance.now() - started).toBeLessThan(2_000);

    // The word blocks declining start both the index's plan and the walk (the walk answers dense words).
    // The walk answers only once the index's plan has started (or 5 s have passed): an attempt that has
    // not begun when another wins is never run, so a quick walk would leave nothing to see.
    const declinedAt = performance.now();
    const startedAt: number[] = [];
    let indexStarted!: () => void;
    const indexRunning = new Promise<void>((resolve) => {
      indexStarted = resolve;
    });
    const declined = await raceTransactions(db, [
      {
        settings: {},
        run: async () => {
          throw new AttemptDeclined("too many candidates");
        },
      },
      {
        settings: {},
        delayMs: 10_000,
        run: (tx) => {
          startedAt.push(performance.now() - declinedAt);
          indexStarted();
          return tx.execute(sql`SELECT pg_sleep(20) AS slow_index`);
        },
      },
      {
        settings: {},
        delayMs: 10_000,
        run: async (tx) => {
          startedAt.push(performance.now() - declinedAt);
          await Promise.race([indexRunning, new Promise((r) => setTimeout(r, 5_000))]);
          return tx.execute(sql`SELECT 3 AS walk`);
        },
      },
    ]);
    expect(declined.index).toBe(2);
    expect(startedAt).toHaveLength(2);
    expect(Math.max(...startedAt)).toBeLessThan(2_000);
  });

  it("answers with another attempt when one fails, and fails when every attempt fails", async () => {
    const db = handle.db;
    const ok = await raceTransactions(db, [
      { settings: {}, run: (tx) => tx.execute(sql`SELECT 1 / 0 AS boom`) },
      { settings: {}, run: (tx) => tx.execute(sql`SELECT pg_sleep(0.2), 7 AS late`) },
    ]);
    expect(ok.index).toBe(1);
    await expect(
      raceTransactions(db, [
        { settings: {}, run: (tx) => tx.execute(sql`SELECT 1 / 0 AS boom`) },
        { settings: {}, run: (tx) => tx.execute(sql`SELECT * FROM no_such_table`) },
      ]),
    ).rejects.toThrow();
  });

  it("reads a feed without search terms with the plain query", async () => {
    const seen: SearchPlan[] = [];
    await searchAlerts(
      handle.db,
      oneAgency,
      { limit: 20 },
      { engine: "postgres", onPlan: (p) => seen.push(p) },
    );
    expect(seen).toEqual(["plain"]);
  });
});

describe("search plans on either engine", () => {
  it("uses the plain query on PGlite, whatever is asked", async () => {
    const seen: SearchPlan[] = [];
    const r = await searchAlerts(
      handle.db,
      admin,
      { limit: 20, search: "rareville", adminContext: true },
      { engine: "pglite", plan: "walk", onPlan: (p) => seen.push(p) },
    );
    expect(seen).toEqual(["plain"]);
    expect(r.data.length).toBeGreaterThan(0);
    expect((r.data as { message: string }[]).every((a) => a.message.includes("RAREVILLE"))).toBe(true);
  });

  it("reads common words together on PGlite from the newest alerts, else from the index, never walking all", async () => {
    // STRUC1 ALARC1 never occur together: the planner would walk every alert for them; the newest
    // RECENT_WINDOW hold no page, so the index's plan answers. STRUC1 HOUSE FIRE (40 % here) fills every
    // page from the newest alerts after the cursor but the last, which the index answers. A member's
    // agencies have their own short word lists: the index. Every page is the plain query's.
    for (const [actor, search, expected] of [
      [admin, "STRUC1 ALARC1", "bitmap"],
      [admin, "STRUC1 HOUSE FIRE", "recent"],
      [oneAgency, "house fire", "bitmap"],
    ] as const) {
      const seen: SearchPlan[] = [];
      const input = { search, adminContext: actor.isAdmin };
      const served = await pages(actor, input, { engine: "pglite", onPlan: (p) => seen.push(p) }, 70);
      expect(served, search).toEqual(await pages(actor, input, { engine: "pglite", plan: "plain" }, 70));
      // With "recent", a page with a next cursor was whole among the newest alerts; the last was not.
      expect(seen, search).toEqual(served.map((page) => (page.next ? expected : "bitmap")));
    }
  });
});
