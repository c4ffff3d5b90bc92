import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import { PollingLoop } from "../support/polling-loop.js";
import type { Database, DatabaseHandle } from "./client.js";
import { rowsOf } from "./rows.js";

/**
 * What autovacuum would do for our tables, for a database where it never runs. The embedded database is
 * PostgreSQL in single-user mode, which starts no autovacuum whatever the `autovacuum` setting says, and a
 * PostgreSQL server can have it switched off. Without it no table is ever analyzed, so the planner works
 * from no statistics (an admin's FIRE search at 200,000 alerts on PGlite: 166 ms, 13 ms analyzed;
 * bench/README.md), the word shares that the search and, on PostgreSQL, the word blocks read from the
 * statistics never exist (word-shares.ts), and queue tables keep every dead row. Where autovacuum runs, this does nothing.
 *
 * The rules are autovacuum's, with the server's settings: a table is analyzed once more rows have
 * changed since its last analysis than `autovacuum_analyze_threshold` plus
 * `autovacuum_analyze_scale_factor` of its rows, and vacuumed (and analyzed) once it holds more dead rows
 * than `autovacuum_vacuum_threshold` plus `autovacuum_vacuum_scale_factor` of its rows. PGlite keeps no
 * activity counters across a restart (they start at 0 each time), so rows added before the last start
 * are also counted from the table's size: its pages now against its pages and rows when last analyzed
 * or vacuumed (pg_class), and a table never analyzed that has pages is due. Autovacuum's third rule, a
 * vacuum after many inserts (for the visibility map and freezing), is left out: on PGlite a vacuum holds
 * the only connection, and ingest would wait behind it (VACUUM alerts at 200,000 alerts: 1.8 s). The
 * word blocks vacuum their own table (word-blocks.ts).
 */

/** A table's activity, as pg_stat_user_tables and pg_class keep it. */
export type TableActivity = {
  table: string;
  /** Rows inserted, updated or deleted since the last analysis (or since the start, on PGlite). */
  modified: number;
  dead: number;
  /** Rows and pages at the last vacuum or analysis; rows are negative before the first. */
  tuples: number;
  pagesThen: number;
  /** Pages now. */
  pages: number;
};

export type UpkeepThresholds = {
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  vacuumThreshold: number;
  vacuumScaleFactor: number;
};

/** ANALYZE the table, or VACUUM (ANALYZE) it. */
export type UpkeepWork = { table: string; action: "analyze" | "vacuum" };

/** The rows added since the last vacuum or analysis, from the table's size; Infinity if it had none then. */
function grownBy(t: TableActivity): number {
  if (t.pages === 0) return 0;
  if (t.tuples < 0 || t.pagesThen === 0) return Number.POSITIVE_INFINITY;
  return t.tuples * (t.pages / t.pagesThen - 1);
}

/** The tables autovacuum would analyze or vacuum now, by its thresholds. */
export function upkeepDue(tables: TableActivity[], thresholds: UpkeepThresholds): UpkeepWork[] {
  const work: UpkeepWork[] = [];
  for (const t of tables) {
    const rows = Math.max(t.tuples, 0);
    const changed = Math.max(t.modified, grownBy(t));
    if (t.dead > thresholds.vacuumThreshold + thresholds.vacuumScaleFactor * rows) {
      work.push({ table: t.table, action: "vacuum" });
    } else if (changed > thresholds.analyzeThreshold + thresholds.analyzeScaleFactor * rows) {
      work.push({ table: t.table, action: "analyze" });
    }
  }
  return work;
}

/** Whether autovacuum looks after this database: never on PGlite; on PostgreSQL when it is switched on. */
export async function autovacuumRuns(db: Database, kind: DatabaseHandle["kind"]): Promise<boolean> {
  if (kind === "pglite") return false;
  const [row] = rowsOf<{ on: boolean }>(
    await db.execute(
      sql`SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' AS on`,
    ),
  );
  return row?.on === true;
}

async function readActivity(
  db: Database,
): Promise<{ tables: TableActivity[]; thresholds: UpkeepThresholds }> {
  const tables = rowsOf<Record<keyof TableActivity, string>>(
    await db.execute(sql`
      SELECT s.relname AS table, s.n_mod_since_analyze AS modified, s.n_dead_tup AS dead,
             c.reltuples AS tuples, c.relpages AS "pagesThen",
             pg_relation_size(s.relid) / current_setting('block_size')::integer AS pages
        FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
       WHERE s.schemaname = current_schema()
       ORDER BY s.relname`),
  ).map((r) => ({
    table: r.table,
    modified: Number(r.modified),
    dead: Number(r.dead),
    tuples: Number(r.tuples),
    pagesThen: Number(r.pagesThen),
    pages: Number(r.pages),
  }));
  const [settings] = rowsOf<Record<keyof UpkeepThresholds, string>>(
    await db.execute(sql`
      SELECT current_setting('autovacuum_analyze_threshold') AS "analyzeThreshold",
             current_setting('autovacuum_analyze_scale_factor') AS "analyzeScaleFactor",
             current_setting('autovacuum_vacuum_threshold') AS "vacuumThreshold",
             current_setting('autovacuum_vacuum_scale_factor') AS "vacuumScaleFactor"`),
  );
  const thresholds = Object.fromEntries(
    Object.entries(settings!).map(([k, v]) => [k, Number(v)]),
  ) as UpkeepThresholds;
  return { tables, thresholds };
}

/**
 * One round of upkeep: analyzes or vacuums the tables that are due (upkeepDue), one statement each, and
 * returns what it did with the time each took. For a database autovacuum does not look after.
 */
export async function runUpkeep(db: Database): Promise<(UpkeepWork & { ms: number })[]> {
  const { tables, thresholds } = await readActivity(db);
  const done: (UpkeepWork & { ms: number })[] = [];
  for (const work of upkeepDue(tables, thresholds)) {
    const started = performance.now();
    const table = sql.identifier(work.table);
    // VACUUM cannot run inside a transaction; db.execute runs each statement on its own.
    await db.execute(work.action === "vacuum" ? sql`VACUUM (ANALYZE) ${table}` : sql`ANALYZE ${table}`);
    done.push({ ...work, ms: Math.round(performance.now() - started) });
  }
  return done;
}

/** How often the tables are looked at; the first look is one interval after the start. */
export const UPKEEP_POLL_MS = 5 * 60_000;

/**
 * Runs `prune` and then runUpkeep every UPKEEP_POLL_MS in the background, logging what each removed,
 * analyzed or vacuumed.
 */
export class DatabaseUpkeep {
  private readonly loop: PollingLoop;
  private firstTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      db: Database;
      kind: DatabaseHandle["kind"];
      logger: Logger;
      pollMs?: number;
      /**
       * Removes what the application keeps no longer (the system log's retention), on every engine,
       * before the tables are looked at; resolves to how many rows it removed.
       */
      prune?: () => Promise<number>;
    },
  ) {
    this.loop = new PollingLoop({
      pollMs: options.pollMs ?? UPKEEP_POLL_MS,
      logger: options.logger,
      failureMessage: "database upkeep failed",
      cycle: async () => {
        const pruned = (await options.prune?.()) ?? 0;
        if (pruned > 0) options.logger.info({ rows: pruned }, "database upkeep: rows past retention removed");
        if (await autovacuumRuns(options.db, options.kind)) return;
        for (const work of await runUpkeep(options.db)) {
          options.logger.info(work, "database upkeep");
        }
      },
    });
  }

  /** Starts the loop after one interval: a start (or a test's short-lived app) is not slowed by it. */
  start(): void {
    clearTimeout(this.firstTimer);
    this.firstTimer = setTimeout(() => this.loop.start(), this.options.pollMs ?? UPKEEP_POLL_MS);
    this.firstTimer.unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.firstTimer);
    await this.loop.stop();
  }
}
