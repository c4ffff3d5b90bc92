import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "../../test/build-app.js";
import type { DatabaseHandle } from "./client.js";
import { rowsOf } from "./rows.js";
import { autovacuumRuns, DatabaseUpkeep, runUpkeep, type TableActivity, upkeepDue } from "./upkeep.js";

// Autovacuum never runs on the embedded database (single-user PostgreSQL) and can be off on a server:
// the server then analyzes and vacuums its tables itself, on autovacuum's thresholds.

const thresholds = {
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
};

describe("upkeepDue", () => {
  /** A table analyzed at `tuples` rows in `pagesThen` pages, as large now as it was then. */
  const table = (name: string, t: Partial<TableActivity>): TableActivity => ({
    table: name,
    modified: 0,
    dead: 0,
    tuples: 9_500,
    pagesThen: 100,
    pages: 100,
    ...t,
  });

  it("analyzes past autovacuum's analyze threshold and vacuums past its dead-row threshold", () => {
    expect(
      upkeepDue(
        [
          table("quiet", { modified: 1_000, dead: 1_950 }),
          table("grown", { modified: 1_001 }),
          table("churned", { modified: 3_000, dead: 1_951 }),
          table("dead_only", { dead: 1_951 }),
          table("small", { tuples: 10, pagesThen: 1, pages: 1, modified: 61 }),
        ],
        thresholds,
      ),
    ).toEqual([
      { table: "grown", action: "analyze" },
      { table: "churned", action: "vacuum" },
      { table: "dead_only", action: "vacuum" },
      { table: "small", action: "analyze" },
    ]);
  });

  it("counts rows added before a restart from the pages, when the counters start again at 0", () => {
    expect(
      upkeepDue(
        [
          // 9,500 rows in 100 pages then; 112 pages now: ~1,140 rows more, over 50 + 950.
          table("grown", { pages: 112 }),
          table("barely", { pages: 110 }),
          table("never_analyzed", { tuples: -1, pagesThen: 0, pages: 1 }),
          table("never_analyzed_empty", { tuples: -1, pagesThen: 0, pages: 0 }),
          table("analyzed_empty", { tuples: 0, pagesThen: 0, pages: 3 }),
        ],
        thresholds,
      ),
    ).toEqual([
      { table: "grown", action: "analyze" },
      { table: "never_analyzed", action: "analyze" },
      { table: "analyzed_empty", action: "analyze" },
    ]);
  });

  it("follows the server's own settings", () => {
    const tables = [table("t", { tuples: 1_000, modified: 200, dead: 200 })];
    expect(upkeepDue(tables, thresholds)).toEqual([{ table: "t", action: "analyze" }]);
    expect(upkeepDue(tables, { ...thresholds, vacuumScaleFactor: 0.1 })).toEqual([
      { table: "t", action: "vacuum" },
    ]);
    expect(upkeepDue(tables, { ...thresholds, analyzeThreshold: 200 })).toEqual([]);
  });
});

describe("upkeep on the database", () => {
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await openTestDatabase();
    await handle.db.execute(sql`CREATE TABLE upkeep_probe (id integer PRIMARY KEY, note text NOT NULL)`);
  });

  afterAll(async () => {
    await handle?.close();
  });

  /** Runs `statement`, then waits until the statistics count `modified` changes since the last analysis. */
  async function changeRows(statement: ReturnType<typeof sql>, modified: number) {
    await handle.db.transaction(async (tx) => {
      await tx.execute(statement);
      // PostgreSQL reports a backend's counters when it is next idle, at most once a second otherwise.
      await tx.execute(sql`SELECT pg_stat_force_next_flush()`);
    });
    for (let i = 0; i < 100; i++) {
      const [row] = rowsOf<{ n: string }>(
        await handle.db.execute(
          sql`SELECT n_mod_since_analyze AS n FROM pg_stat_user_tables WHERE relname = 'upkeep_probe'`,
        ),
      );
      if (Number(row?.n) >= modified) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the statistics never counted the change");
  }

  const probe = async () =>
    rowsOf<{ tuples: number; columns: string; analyzed: boolean; vacuumed: boolean }>(
      await handle.db.execute(sql`
        SELECT c.reltuples AS tuples,
               (SELECT count(*) FROM pg_stats WHERE tablename = 'upkeep_probe')::text AS columns,
               s.last_analyze IS NOT NULL AS analyzed, s.last_vacuum IS NOT NULL AS vacuumed
          FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
         WHERE c.relname = 'upkeep_probe'`),
    )[0]!;

  it("analyzes a table once enough rows changed, and leaves it until more do", async () => {
    await changeRows(
      sql`INSERT INTO upkeep_probe SELECT g, 'note ' || g FROM generate_series(1, 5000) AS g`,
      5000,
    );
    expect(await probe()).toMatchObject({ columns: "0", analyzed: false });

    const done = await runUpkeep(handle.db);
    expect(done.find((w) => w.table === "upkeep_probe")).toMatchObject({ action: "analyze" });
    expect(await probe()).toMatchObject({ tuples: 5000, columns: "2", analyzed: true, vacuumed: false });

    // 60 more rows: under 50 + 10 % of 5,000.
    await changeRows(
      sql`INSERT INTO upkeep_probe SELECT g, 'note ' || g FROM generate_series(5001, 5060) AS g`,
      60,
    );
    expect((await runUpkeep(handle.db)).find((w) => w.table === "upkeep_probe")).toBeUndefined();
    expect(await probe()).toMatchObject({ tuples: 5000 });
  });

  it("still sees rows added before the counters started again (PGlite keeps none across a restart)", async () => {
    await changeRows(
      sql`INSERT INTO upkeep_probe SELECT g, 'note ' || g FROM generate_series(5061, 6000) AS g`,
      1000,
    );
    await handle.db.execute(sql`SELECT pg_stat_reset()`);
    const done = await runUpkeep(handle.db);
    expect(done.find((w) => w.table === "upkeep_probe")).toMatchObject({ action: "analyze" });
    expect(await probe()).toMatchObject({ tuples: 6000 });
  });

  it("vacuums a table holding many dead rows", async () => {
    // 4,000 dead rows: over 50 + 20 % of 6,000.
    await changeRows(sql`DELETE FROM upkeep_probe WHERE id > 2000`, 4000);
    const done = await runUpkeep(handle.db);
    expect(done.find((w) => w.table === "upkeep_probe")).toMatchObject({ action: "vacuum" });
    expect(await probe()).toMatchObject({ tuples: 2000, vacuumed: true });
  });

  it("runs in the background where autovacuum does not, and stays idle where it does", async () => {
    const autovacuum = await autovacuumRuns(handle.db, handle.kind);
    if (handle.kind === "pglite") expect(autovacuum).toBe(false);
    await changeRows(
      sql`INSERT INTO upkeep_probe SELECT g, 'again ' || g FROM generate_series(10001, 11000) AS g`,
      1000,
    );
    const logged: { table?: string; action?: string; msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const upkeep = new DatabaseUpkeep({ db: handle.db, kind: handle.kind, logger, pollMs: 20 });
    upkeep.start();
    try {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && !logged.some((l) => l.table === "upkeep_probe")) {
        await new Promise((r) => setTimeout(r, 20));
      }
      if (autovacuum) {
        expect(logged).toEqual([]);
      } else {
        expect(logged).toContainEqual(
          expect.objectContaining({ msg: "database upkeep", table: "upkeep_probe", action: "analyze" }),
        );
        expect(await probe()).toMatchObject({ tuples: 3000 });
      }
    } finally {
      await upkeep.stop();
    }
  });
});
