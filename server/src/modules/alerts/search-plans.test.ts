import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngine } from "../../../test/build-app.js";
import type { DatabaseHandle } from "../../db/client.js";
import type { Actor } from "../auth/guard.js";
import { type SearchInput, type SearchOptions, type SearchPlan, searchAlerts } from "./service.js";

// On PostgreSQL searchAlerts tries the planner's own plan under a statement timeout, then the trigram
// index; these tests prove every plan and every path returns the same pages, cursor included.

// PGlite only checks that it keeps the plain query, so it gets a smaller table.
const ALERTS = testEngine === "postgres" ? 30_000 : 3_000;
let handle: DatabaseHandle;
let admin: Actor;
let oneAgency: Actor;
let twoAgencies: Actor;

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
  // Texts: FIRE in 40 %, STRUC1 / ALARC1 never together, RAREVILLE in 25, ODDTOWN in 0.5 %.
  await db.execute(sql`
    INSERT INTO agencies (name, code) VALUES ('Plan A', 'PLAN-A'), ('Plan B', 'PLAN-B'), ('Plan C', 'PLAN-C')`);
  await db.execute(sql`
    INSERT INTO capcodes (capcode, agency_id)
    SELECT '09' || lpad(a.id::text, 5, '0'), a.id FROM agencies a WHERE a.code LIKE 'PLAN-%'`);
  await db.execute(sql`
    INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, dedupe_hash, sent_at, created_at)
    SELECT 'emergency', m, m, c.capcode, c.id, c.agency_id, md5(m), now(), now() - (${ALERTS} - i) * interval '1 minute'
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
}, 120_000);
afterAll(() => handle.close());

const searches = [
  "fire",
  "RAREVILLE",
  "fire rareville",
  "struc1 house fire",
  "struc1 alarc1",
  "oddtown",
  "high st someville mva",
];

describe.skipIf(testEngine !== "postgres")("search plans on PostgreSQL", () => {
  it("returns the same pages and cursors from the walk, the trigram plan, the planner's own and auto", async () => {
    const scopes = [
      { actor: admin, adminContext: true },
      { actor: oneAgency, adminContext: false },
      { actor: twoAgencies, adminContext: false },
    ];
    for (const { actor, adminContext } of scopes) {
      for (const search of searches) {
        const input = { search, adminContext };
        const walk = await pages(actor, input, { engine: "postgres", plan: "walk" });
        const bitmap = await pages(actor, input, { engine: "postgres", plan: "bitmap" });
        const plain = await pages(actor, input, { engine: "postgres", plan: "plain" });
        const auto = await pages(actor, input, { engine: "postgres" });
        // A first attempt cancelled at once: the trigram plan answers every page.
        const fallback = await pages(actor, input, {
          engine: "postgres",
          firstAttempt: "walk",
          timeoutMs: 1,
        });
        expect(bitmap, `${search} (bitmap)`).toEqual(walk);
        expect(plain, `${search} (plain)`).toEqual(walk);
        expect(auto, `${search} (auto)`).toEqual(walk);
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
  });

  it("answers with the planner's own plan in time, and with the trigram plan after a cancelled attempt", async () => {
    const seen: { plan: SearchPlan; cancelled: boolean }[] = [];
    const onPlan: SearchOptions["onPlan"] = (plan, d) => seen.push({ plan, ...d });
    const input = { limit: 50, search: "fire", adminContext: true };
    const dense = await searchAlerts(handle.db, admin, input, {
      engine: "postgres",
      timeoutMs: 10_000,
      onPlan,
    });
    expect(seen.pop()).toEqual({ plan: "planner", cancelled: false });
    expect(dense.data).toHaveLength(50);
    const walked = await searchAlerts(handle.db, admin, input, {
      engine: "postgres",
      firstAttempt: "walk",
      timeoutMs: 10_000,
      onPlan,
    });
    expect(seen.pop()).toEqual({ plan: "walk", cancelled: false });
    expect(walked).toEqual(dense);

    // 0 results: a walk reads all 30,000 alerts, far longer than 1 ms; the trigram plan answers.
    const zero = { limit: 50, search: "struc1 alarc1", adminContext: true };
    const options = { engine: "postgres", firstAttempt: "walk", timeoutMs: 1, onPlan } as const;
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
          searchAlerts(handle.db, admin, input, { engine: "postgres", firstAttempt, timeoutMs: 1 }),
        ),
      );
    }
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
});
