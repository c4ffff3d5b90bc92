import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngine } from "../../../test/build-app.js";
import type { DatabaseHandle } from "../../db/client.js";
import type { Actor } from "../../shared/guard.js";
import type { SearchOptions } from "./search-plans.js";
import { searchAlerts } from "./service.js";
import { MAX_QUALIFIED_AGENCIES, MAX_TERM_WORDS, termConditions } from "./term-conditions.js";

// The word prefilter (migration 0016) may only narrow a search to a superset of its matches: every
// search here must return the same pages and cursors with it as without it (the reference), on PGlite
// and on PostgreSQL, for the cases where a word index could go wrong.

const engine = testEngine === "postgres" ? "postgres" : "pglite";
let handle: DatabaseHandle;
let admin: Actor;
let agencyA: Actor;
let agencyIds: number[];

const TEXTS = [
  "@@ALERT F251108001 BRAV2 STRUC1 HOUSE FIRE 14 EXAMPLE RD SOMEVILLE",
  "@@ALERT F251108002 BRAV2 G&SC1 BUSHFIRE NEAR HOUSES HIGH ST OTHERTON [BRAV]",
  "@@ALERT F251108003 ALARC1 AFA / SPRINKLER FLOW (249631) CBRAV",
  "@@ALERT E25110800412 AMBULANCE ASSIST CFA 2 MAIN ST LAT/LON:-36.12, 143.50 CBRAV",
  "FIREARM INCIDENT Kitchen Fire fIrE",
  "HOUSE\tFIRE WITH A TAB  AND TWO SPACES",
  "100%_DONE C:\\PATH\\FIRE",
  "ÉCOLE STRUC1 ÉCOLE PRIMAIRE",
  "@@ALERT F251108009 ALARC1 AFA SMOKE DETECTOR WOMBELANO",
  "@@ALERT F251108010 STRUC1 SHED FIRE WOMBELANO",
];

const SEARCHES = [
  "fire",
  "FIRE",
  "ire",
  "bushfire",
  "firearm",
  "house fire",
  "g&sc",
  "&sc1",
  "[brav]",
  "(2496",
  "lat/lon:-36",
  "-36.12,",
  "afa / sprinkler",
  "100%",
  "%_d",
  "c:\\path",
  "\\fire",
  "école",
  "ÉCOLE",
  "struc1 alarc1",
  "struc1 wombelano",
  "fi",
  "zzzz",
  "fire zzzz",
  "tab and",
  "251108",
  "f2511080",
];

async function pages(actor: Actor, search: string, adminContext: boolean, options: SearchOptions) {
  const out: { ids: number[]; next: string | null }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await searchAlerts(
      handle.db,
      actor,
      { limit: 2, search, adminContext, cursor },
      { engine, quick: handle.quick, ...options },
    );
    const next = r.pagination.next_cursor;
    out.push({ ids: (r.data as { id: number }[]).map((a) => a.id), next });
    if (!next) break;
    cursor = next;
  }
  return out;
}

async function user(isAdmin: boolean, agencyIds: number[]): Promise<Actor> {
  const r = (await handle.db.execute(
    sql`INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
        VALUES ('Word', 'Tester', ${`+6148${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`}, ${isAdmin}, true, true)
        RETURNING id`,
  )) as unknown as { rows: { id: number }[] };
  const userId = Number(r.rows[0]!.id);
  for (const id of agencyIds)
    await handle.db.execute(sql`INSERT INTO user_agencies (user_id, agency_id) VALUES (${userId}, ${id})`);
  return { userId, sessionId: "00000000-0000-0000-0000-000000000000", isAdmin };
}

beforeAll(async () => {
  handle = await openTestDatabase();
  const db = handle.db;
  await db.execute(sql`INSERT INTO agencies (name, code) VALUES ('Word A', 'WORD-A'), ('Word B', 'WORD-B')`);
  await db.execute(sql`
    INSERT INTO capcodes (capcode, agency_id)
    SELECT '08' || lpad(a.id::text, 5, '0'), a.id FROM agencies a WHERE a.code LIKE 'WORD-%'`);
  // Each text three times (one statement per alert, as ingest writes them), to agency A, B, A in turn,
  // so the pages of two hold both agencies and every search has a cursor to follow.
  for (let round = 0; round < 3; round++) {
    for (const [i, text] of TEXTS.entries()) {
      await db.execute(sql`
        INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids,
                            dedupe_hash, sent_at, created_at)
        SELECT 'emergency', ${text}, ${text}, c.capcode, c.id, c.agency_id, ARRAY[c.agency_id], md5(${text} || ${round}),
               now() - ${(3 - round) * 100 - i} * interval '1 minute', now()
          FROM capcodes c JOIN agencies a ON a.id = c.agency_id
         WHERE a.code = ${(round * TEXTS.length + i) % 2 === 0 ? "WORD-A" : "WORD-B"}`);
    }
  }
  const ids = (
    (await db.execute(sql`SELECT id FROM agencies WHERE code LIKE 'WORD-%' ORDER BY code`)) as unknown as {
      rows: { id: number }[];
    }
  ).rows.map((r) => Number(r.id));
  agencyIds = ids;
  // Statistics on the word index's expression, so termConditions weighs the terms (termShares).
  await db.execute(sql`ANALYZE alerts`);
  admin = await user(true, []);
  agencyA = await user(false, [ids[0]!]);
}, 60_000);
afterAll(() => handle.close());

describe("the word prefilter", () => {
  it("returns the same pages and cursors as the search without it", async () => {
    for (const search of SEARCHES) {
      for (const [actor, adminContext] of [
        [admin, true],
        [agencyA, false],
      ] as const) {
        const reference = await pages(actor, search, adminContext, { words: false, plan: "plain" });
        const withWords = await pages(actor, search, adminContext, {});
        expect(withWords, `${search} (${adminContext ? "admin" : "agency A"})`).toEqual(reference);
        if (engine === "postgres") {
          for (const plan of ["walk", "bitmap"] as const) {
            expect(await pages(actor, search, adminContext, { plan }), `${search} (${plan})`).toEqual(
              reference,
            );
          }
        }
      }
    }
    // The cases are real: substrings of longer words and punctuation find alerts, the absent word none.
    const count = async (search: string) =>
      (await pages(admin, search, true, { words: false })).flatMap((p) => p.ids).length;
    expect(await count("ire")).toBe(21);
    expect(await count("bushfire")).toBe(3);
    expect(await count("&sc1")).toBe(3);
    expect(await count("c:\\path")).toBe(3);
    expect(await count("école")).toBe(3);
    expect(await count("struc1 alarc1")).toBe(0);
  });

  it("serves whole words and substrings, leaves short and widespread terms to the text check", async () => {
    // 1: the word index serves the term; 0: the plain ILIKE; null: no word holds it.
    const words = async (term: string) => {
      const p = await termConditions(handle.db, [`%${term}%`], { quick: handle.quick });
      if (p === null) return null;
      return new PgDialect().sqlToQuery(p.conditions[0]!).sql.includes("string_to_array") ? 1 : 0;
    };
    expect(await words("fire")).toBe(1); // FIRE, BUSHFIRE, FIREARM, C:\PATH\FIRE ...
    expect(await words("wombelano")).toBe(1);
    expect(await words("zzzz")).toBeNull(); // in no word: no alert can match
    expect(await words("fi")).toBe(0); // too short to look up
    // More words than MAX_TERM_WORDS contain "alert n": the term gets no condition.
    const many = Array.from({ length: MAX_TERM_WORDS + 1 }, (_, i) => `QQQ${i}`).join(" ");
    await handle.db.execute(
      sql`INSERT INTO search_words (word) SELECT lower(w) FROM unnest(string_to_array(${many}, ' ')) w`,
    );
    expect(await words("qqq")).toBe(0);
    if (engine === "postgres") {
      // A look-up that runs past QUICK_STATEMENT_MS (here: waiting for a lock) is cancelled by the server,
      // and its term keeps the text check instead of failing the search.
      await handle.db.transaction(async (tx) => {
        await tx.execute(sql`LOCK TABLE search_words IN ACCESS EXCLUSIVE MODE`);
        expect(await words("wombelano")).toBe(0);
      });
      expect(await words("wombelano")).toBe(1);
    }
  });

  it("keeps search_words complete when alerts are added in bulk and when a message changes", async () => {
    const [row] = (
      (await handle.db.execute(sql`
        INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, dedupe_hash, sent_at)
        SELECT 'emergency', m, m, c.capcode, c.id, c.agency_id, ARRAY[c.agency_id], md5(m), now()
          FROM unnest(ARRAY['NEWWORDONE FIRE', 'NEWWORDTWO FIRE']) AS m,
               (SELECT * FROM capcodes WHERE capcode LIKE '08%' ORDER BY id LIMIT 1) c
        RETURNING id`)) as unknown as { rows: { id: number }[] }
    ).rows;
    const found = async (search: string) =>
      (
        await searchAlerts(
          handle.db,
          admin,
          { limit: 10, search, adminContext: true },
          { engine, quick: handle.quick },
        )
      ).data.length;
    expect(await found("newwordone")).toBe(1);
    expect(await found("wordtwo")).toBe(1);
    await handle.db.execute(
      sql`UPDATE alerts SET message = 'CHANGEDWORD FIRE' WHERE id = ${Number(row!.id)}`,
    );
    expect(await found("changedword")).toBe(1);
    expect(await found("newwordone")).toBe(0);
  });

  it("reads a member's agencies' own words, also of an alert paged to their agency by a later copy", async () => {
    const [a, b] = agencyIds as [number, number];
    const qualified = async (search: string, scope: number[] | null) => {
      const p = await termConditions(handle.db, [`%${search}%`], { quick: handle.quick }, scope);
      return p === null
        ? null
        : { qualified: p.qualified, sql: new PgDialect().sqlToQuery(p.conditions[0]!) };
    };
    const inB = await qualified("wombelano", [b]);
    expect(inB?.qualified).toBe(true);
    expect(inB?.sql.params).toContain(`${b}:wombelano`);
    expect((await qualified("wombelano", null))?.qualified).toBe(false); // every agency: plain words
    const many = Array.from({ length: MAX_QUALIFIED_AGENCIES + 1 }, (_, i) => a + i);
    expect((await qualified("wombelano", many))?.qualified).toBe(false);

    // An alert of agency A only, then a copy paged to a capcode of B: B's member finds it by a word.
    const [row] = (
      (await handle.db.execute(sql`
        INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, dedupe_hash, sent_at)
        SELECT 'emergency', m, m, c.capcode, c.id, c.agency_id, ARRAY[c.agency_id], md5(m), now()
          FROM (VALUES ('LATERCOPYWORD FIRE')) AS t(m), capcodes c WHERE c.agency_id = ${a}
        RETURNING id`)) as unknown as { rows: { id: number }[] }
    ).rows;
    const alertId = Number(row!.id);
    const pageTo = (agency: number) =>
      handle.db.execute(sql`
        INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
        SELECT ${alertId}, c.id, c.agency_id FROM capcodes c WHERE c.agency_id = ${agency}`);
    await pageTo(a);
    const memberOfB = await user(false, [b]);
    const search = (actor: Actor) =>
      searchAlerts(
        handle.db,
        actor,
        { limit: 10, search: "latercopy" },
        { engine, quick: handle.quick },
      ).then((r) => (r.data as { id: number }[]).map((x) => x.id));
    expect(await search(memberOfB)).toEqual([]);
    await pageTo(b);
    expect(await search(memberOfB)).toEqual([alertId]);
    expect(await search(agencyA)).toEqual([alertId]);
  });
});
