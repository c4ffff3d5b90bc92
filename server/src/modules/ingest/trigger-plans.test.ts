import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "../../../test/build-app.js";
import type { Database, DatabaseHandle } from "../../db/client.js";
import { jsonValue, rowsOf } from "../../db/rows.js";
import { agencies, capcodes } from "../../db/schema.js";

// A connection keeps the plans of its triggers' statements (migration 0022) and of ingest_messages' own
// lookups for its lifetime. Those plans are made while the tables are small, on a new database, and must
// still look rows up by index once the tables are large: a plan that scans alerts or search_words turns
// every later message into a scan of the whole table (seen before migration 0019: 40-90 ms a message at
// 60,000 alerts, instead of ~1). This writes a few messages into small tables, grows them, and counts
// the sequential scans one more message takes, all on one connection (one transaction), so the plans
// made at the start are the ones in use at the end.

const BATCH = 100;
const SMALL = 20;
const GROWN = 20_000;
let handle: DatabaseHandle;
type Capcode = { id: number; capcode: string; agencyId: number };
let capcode: Capcode;
let otherCapcode: Capcode;

beforeAll(async () => {
  handle = await openTestDatabase();
  const [a, b] = await handle.db
    .insert(agencies)
    .values([
      { code: "PLANA", name: "Plan Agency A" },
      { code: "PLANB", name: "Plan Agency B" },
    ])
    .returning();
  const rows = await handle.db
    .insert(capcodes)
    .values([
      { capcode: "0990001", agencyId: a!.id },
      { capcode: "0990002", agencyId: b!.id },
    ])
    .returning();
  [capcode, otherCapcode] = [rows[0]!, rows[1]!];
});
afterAll(() => handle.close());

/** Messages through the ingest function in one call, as the service sends them (modules/ingest/service.ts). */
async function ingest(db: Database, capcodeText: string, texts: string[]): Promise<{ status: string }[]> {
  const stamp = rowsOf<{ stamp: string }>(await db.execute(sql`SELECT ingest_grouping_stamp() AS stamp`))[0]!
    .stamp;
  const batch = {
    stamp: String(stamp),
    locks: [],
    dedupe_seconds: 300,
    group_hours: 24,
    unmapped: { code: "UNMAPPED", name: "Unmapped" },
    messages: texts.map((text) => ({
      capcode: capcodeText,
      source: "plans",
      id: null,
      type: "emergency",
      raw_message: text,
      message: text,
      hash: text.toLowerCase(),
      job_number: null,
      primary_address: null,
      has_mappable_address: false,
      directions_url: null,
      latitude: null,
      longitude: null,
      sent_at: new Date().toISOString(),
    })),
  };
  const out = rowsOf<{ out: unknown }>(
    await db.execute(sql`SELECT ingest_messages(${JSON.stringify(batch)}::jsonb) AS out`),
  )[0]!.out;
  return jsonValue<{ results: { status: string }[] }>(out).results;
}

/** Sequential scans of the tables ingest reads, counted within the current transaction. */
async function seqScans(db: Database): Promise<Record<string, number>> {
  const rows = rowsOf<{ relname: string; seq_scan: string | number }>(
    await db.execute(sql`
      SELECT relname, seq_scan FROM pg_stat_xact_user_tables
       WHERE relname IN ('alerts', 'search_words', 'alert_recipients', 'ingest_message_ids', 'capcodes')`),
  );
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.seq_scan)]));
}

describe("ingest's plans on a growing database", () => {
  it("looks rows up by index after the tables grow under plans made while they were small", async () => {
    await handle.db.transaction(async (tx) => {
      // Plans made on small tables: a batch first (the triggers plan for its size), then more than five
      // single messages, so parameterised lookups settle on a generic plan.
      await ingest(
        tx,
        capcode.capcode,
        Array.from({ length: BATCH }, (_, i) => `PLANTEST BATCH ${i} WORDC${i}`),
      );
      for (let i = 0; i < SMALL; i++) await ingest(tx, capcode.capcode, [`PLANTEST SMALL ${i} WORDA${i}`]);
      await tx.execute(sql`
        WITH grown AS (
          INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, dedupe_hash, sent_at)
          SELECT 'emergency', m, m, ${capcode.capcode}, ${capcode.id}, agency_id, ARRAY[agency_id], md5(m), now()
            FROM capcodes, LATERAL (SELECT 'PLANTEST GROWN ' || g || ' WORDB' || g AS m
                                      FROM generate_series(1, ${GROWN}) g) t
           WHERE capcodes.id = ${capcode.id}
          RETURNING id, capcode_id, agency_id)
        INSERT INTO alert_recipients (alert_id, capcode_id, agency_id) SELECT * FROM grown`);

      const before = await seqScans(tx);
      expect(await ingest(tx, capcode.capcode, ["PLANTEST LARGE NEWWORD1 NEWWORD2"])).toEqual([
        expect.objectContaining({ status: "created" }),
      ]);
      // The same text from another agency's capcode: a new recipient, the alert's agency_ids updated.
      expect(await ingest(tx, otherCapcode.capcode, ["PLANTEST LARGE NEWWORD1 NEWWORD2"])).toEqual([
        expect.objectContaining({ status: "merged" }),
      ]);
      const after = await seqScans(tx);
      for (const table of Object.keys(after)) {
        expect({ table, scans: (after[table] ?? 0) - (before[table] ?? 0) }).toEqual({ table, scans: 0 });
      }

      const [row] = rowsOf<{ agency_ids: number[]; words: number }>(
        await tx.execute(sql`
          SELECT a.agency_ids,
                 (SELECT count(*)::int FROM search_words WHERE word IN ('newword1', 'newword2')) AS words
            FROM alerts a WHERE a.message = 'PLANTEST LARGE NEWWORD1 NEWWORD2'`),
      );
      expect(row!.agency_ids.map(Number).sort()).toEqual(
        [capcode, otherCapcode].map((c) => c.agencyId).sort(),
      );
      expect(row!.words).toBe(2);
    });
    // Grows the tables by 20,000 alerts on PGlite: ~6 s on an idle machine, over 20 s beside other work.
  }, 60_000);
});
