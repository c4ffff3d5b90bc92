/**
 * Loads the search benchmark's alerts into a persistent database and keeps it, so search.ts (and other
 * measurements, e.g. memory while searching) can run against it again and again without loading:
 *
 *   npx tsx bench/server/load-search.ts                               (10,000,000 alerts into bench10m)
 *   BENCH_DB=bench1m BENCH_ALERTS=1000000 npx tsx bench/server/load-search.ts
 *   BENCH_REUSE_DB=bench10m npx tsx bench/server/search.ts             (measure on it)
 *
 * The database is created (migrated by the server's own migrations) and must not exist yet; drop it
 * by hand (`DROP DATABASE bench10m`) to load again. The same generator and seed as search.ts's own
 * scratch load, so the data is the same at the same size.
 */
import os from "node:os";
import pg from "pg";
import { openDatabase } from "../../server/src/db/client.js";
import { createAgencies } from "./lib/agencies.js";
import { baseDatabaseUrl, log, runMain } from "./lib/common.js";
import { PagerTraffic } from "./lib/messages.js";
import { loadAlerts } from "./lib/search-load.js";

const TOTAL = Number(process.env.BENCH_ALERTS ?? 10_000_000);
const NAME = process.env.BENCH_DB ?? "bench10m";

async function main() {
  if (!/^bench\w*$/.test(NAME)) throw new Error("BENCH_DB must start with 'bench' (letters, digits, _)");
  const admin = new pg.Client({ connectionString: baseDatabaseUrl() });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [NAME]);
    if (exists.rowCount) throw new Error(`database ${NAME} exists; drop it first to load again`);
    await admin.query(`CREATE DATABASE ${NAME}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${NAME}`;
  const migrated = await openDatabase({ databaseUrl: url.toString(), pgliteDir: "" });
  await migrated.close();

  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  const load0 = os.loadavg();
  const t0 = performance.now();
  try {
    const client = await pool.connect();
    const agencies = await createAgencies(client);
    client.release();
    const times = await loadAlerts(pool, agencies, new PagerTraffic(1), TOTAL, log);
    const size = await pool.query<{ db: string; alerts: string; trgm: string; recipients: string }>(
      `SELECT pg_size_pretty(pg_database_size(current_database())) AS db,
              pg_size_pretty(pg_total_relation_size('alerts')) AS alerts,
              pg_size_pretty(pg_relation_size('alerts_agency_ids_message_idx')) AS trgm,
              (SELECT count(*) FROM alert_recipients)::text AS recipients`,
    );
    const s = size.rows[0]!;
    console.log(
      [
        `database ${NAME}: ${TOTAL.toLocaleString("en-AU")} alerts, ${Number(s.recipients).toLocaleString("en-AU")} recipient rows`,
        `rows ${times.rowsSeconds.toFixed(0)} s, indexes ${times.indexSeconds.toFixed(0)} s, VACUUM ANALYZE ${times.analyseSeconds.toFixed(0)} s, total ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        `sizes: database ${s.db}, alerts with indexes ${s.alerts}, trigram GIN ${s.trgm}`,
        `load average before ${load0.map((l) => l.toFixed(2)).join(" ")}, after ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}; ${new Date().toISOString()}`,
      ].join("\n"),
    );
  } finally {
    await pool.end();
  }
}

runMain(main);
