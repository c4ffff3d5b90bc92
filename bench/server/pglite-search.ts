/**
 * Search on the embedded PGlite database (the zero-setup default), before and after the server's
 * database upkeep (server/src/db/upkeep.ts): PGlite runs no autovacuum, so until the upkeep analyzes
 * a table the planner has no statistics and the word blocks are never filled.
 *
 * Loads BENCH_ALERTS messages (default 200,000) into a fresh PGlite directory through ingest_messages
 * (batches of 500, the generator of lib/messages.ts, RARE_SUBURB planted in RARE_COUNT of them, capcodes
 * under UNMAPPED but for SMALL_SHARE of them, paged to one small agency), closes and opens it again as a
 * restarted server would (PGlite keeps no activity counters across that), and times the search classes
 * of lib/search-classes.ts for an admin and for a member of the small agency:
 * (1) as loaded, never analyzed; (2) after one round of runUpkeep, opened again (the search reads the
 * word shares from the statistics at most every 10 minutes per database; a new handle reads them now).
 *
 *   npx tsx bench/server/pglite-search.ts
 *   BENCH_ALERTS=50000 BENCH_RUNS=9 npx tsx bench/server/pglite-search.ts
 *   BENCH_PGLITE_DIR=data/bench-pglite npx tsx bench/server/pglite-search.ts   (kept; loaded once)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { detectMessageType, displayText } from "@turnout/domain";
import { sql } from "drizzle-orm";
import { type DatabaseHandle, openDatabase } from "../../server/src/db/client.js";
import { rowsOf } from "../../server/src/db/rows.js";
import { runUpkeep } from "../../server/src/db/upkeep.js";
import type { SearchPlan } from "../../server/src/modules/alerts/search-plans.js";
import { searchAlerts } from "../../server/src/modules/alerts/service.js";
import { textHash } from "../../server/src/modules/ingest/service.js";
import { log, ms, percentile, repoRoot, runMain, table } from "./lib/common.js";
import { PagerTraffic, RARE_SUBURB } from "./lib/messages.js";
import { RARE_COUNT, SEARCH_CLASSES } from "./lib/search-classes.js";

const TOTAL = Number(process.env.BENCH_ALERTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BATCH = 500;
/** Capcodes 1000000-1000014 of the 500 the messages go to (3 %) belong to the small agency. */
const SMALL_CAPCODES = 15;

async function load(handle: DatabaseHandle) {
  const db = handle.db;
  await db.execute(sql`
    WITH small AS (INSERT INTO agencies (name, code) VALUES ('Bench small agency', 'BENCH-SMALL') RETURNING id)
    INSERT INTO capcodes (capcode, agency_id) SELECT (1000000 + g)::text, small.id
      FROM small, generate_series(0, ${SMALL_CAPCODES - 1}) AS g`);
  const stamp = rowsOf<{ s: string }>(await db.execute(sql`SELECT ingest_grouping_stamp() AS s`))[0]!.s;
  const traffic = new PagerTraffic(1);
  const every = Math.floor(TOTAL / RARE_COUNT);
  for (let first = 0; first < TOTAL; first += BATCH) {
    const messages = [];
    for (let i = first; i < Math.min(first + BATCH, TOTAL); i++) {
      const g = traffic.next(i % every === every - 1 ? RARE_SUBURB : undefined);
      const text = displayText(g.raw);
      messages.push({
        capcode: String(1_000_000 + (i % 500)),
        type: detectMessageType(g.raw),
        raw_message: g.raw,
        message: text,
        hash: textHash(text),
        primary_address: g.address,
        sent_at: new Date().toISOString(),
      });
    }
    const batch = {
      stamp: String(stamp),
      locks: [],
      dedupe_seconds: 0,
      group_hours: 24,
      unmapped: { code: "UNMAPPED", name: "Unmapped" },
      messages,
    };
    await db.execute(sql`SELECT ingest_messages(${JSON.stringify(batch)}::jsonb) AS out`);
    if (first % 50_000 === 0 && first > 0) log(`${first} loaded`);
  }
}

type Cell = { p50: number; p95: number; plan: string; matches: number };

type Viewer = { name: string; userId: number; isAdmin: boolean };

async function measure(handle: DatabaseHandle, viewer: Viewer): Promise<Map<string, Cell>> {
  const actor = {
    userId: viewer.userId,
    sessionId: "00000000-0000-0000-0000-000000000000",
    isAdmin: viewer.isAdmin,
  };
  const out = new Map<string, Cell>();
  for (const c of SEARCH_CLASSES) {
    const times: number[] = [];
    const plans = new Set<SearchPlan>();
    let matches = 0;
    for (let run = 0; run < RUNS + 1; run++) {
      const started = performance.now();
      const r = await searchAlerts(
        handle.db,
        actor,
        { limit: 50, search: c.search || undefined, adminContext: viewer.isAdmin },
        { engine: "pglite", onPlan: (p) => plans.add(p) },
      );
      // The first run warms the cache and is not counted.
      if (run > 0) times.push(performance.now() - started);
      matches = r.data.length;
    }
    out.set(c.name, {
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      plan: [...plans].join("/"),
      matches,
    });
  }
  return out;
}

async function main() {
  const kept = process.env.BENCH_PGLITE_DIR;
  const dir = kept ? path.resolve(repoRoot, kept) : mkdtempSync(path.join(os.tmpdir(), "bench-pglite-"));
  let handle = await openDatabase({ databaseUrl: null, pgliteDir: dir });
  const n = rowsOf<{ n: string }>(await handle.db.execute(sql`SELECT count(*) AS n FROM alerts`))[0]!.n;
  if (Number(n) === 0) {
    const started = performance.now();
    await load(handle);
    log(`${TOTAL} alerts loaded in ${((performance.now() - started) / 1000).toFixed(1)} s into ${dir}`);
  } else {
    log(`${n} alerts already in ${dir}`);
  }
  // Reopened, as after a restart: PGlite's activity counters start again at 0.
  await handle.close();
  handle = await openDatabase({ databaseUrl: null, pgliteDir: dir });
  const viewer = async (name: string, isAdmin: boolean): Promise<Viewer> => {
    const [user] = rowsOf<{ id: number }>(
      await handle.db.execute(sql`
        INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
        VALUES ('Bench', ${name}, '+614' || lpad((random() * 1e8)::bigint::text, 8, '0'), ${isAdmin}, true, true)
        RETURNING id`),
    );
    if (!isAdmin) {
      await handle.db.execute(sql`
        INSERT INTO user_agencies (user_id, agency_id) SELECT ${user!.id}, id FROM agencies WHERE code = 'BENCH-SMALL'`);
    }
    return { name, userId: user!.id, isAdmin };
  };
  const viewers = [await viewer("admin", true), await viewer("small agency", false)];
  const analyzed = rowsOf<{ analyzed: boolean }>(
    await handle.db.execute(sql`SELECT reltuples >= 0 AS analyzed FROM pg_class WHERE relname = 'alerts'`),
  )[0]!.analyzed;

  const before = new Map<string, Map<string, Cell>>();
  for (const v of viewers) before.set(v.name, await measure(handle, v));
  const started = performance.now();
  const upkeep = await runUpkeep(handle.db);
  const upkeepMs = performance.now() - started;
  log(`upkeep: ${upkeep.map((w) => `${w.action} ${w.table} ${w.ms} ms`).join(", ")}`);
  await handle.close();
  handle = await openDatabase({ databaseUrl: null, pgliteDir: dir });
  const after = new Map<string, Map<string, Cell>>();
  for (const v of viewers) after.set(v.name, await measure(handle, v));
  await handle.close();
  if (!kept) rmSync(dir, { recursive: true, force: true });

  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  const pglite = JSON.parse(
    readFileSync(path.join(repoRoot, "node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ).version;
  console.log("```");
  console.log(`date: ${new Date().toISOString()}`);
  console.log(
    `machine: nproc ${execFileSync("nproc", { encoding: "utf8" }).trim()}, ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB memory`,
  );
  console.log(
    `node ${process.version}; PGlite ${pglite}; ${TOTAL} alerts; ${RUNS} runs a cell after one warm-up`,
  );
  console.log(
    `load average at the end (1/5/15 min): ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `upkeep round: ${ms(upkeepMs)} ms (${upkeep.map((w) => `${w.action} ${w.table} ${w.ms} ms`).join(", ")})`,
  );
  console.log("```\n");
  console.log(
    table(
      [
        "viewer",
        "query",
        "search",
        analyzed ? "before (analyzed already) p50 / p95" : "never analyzed p50 / p95",
        "plan",
        "after the upkeep p50 / p95",
        "plan",
        "page",
      ],
      viewers.flatMap((v) =>
        SEARCH_CLASSES.map((c) => {
          const b = before.get(v.name)!.get(c.name)!;
          const a = after.get(v.name)!.get(c.name)!;
          return [
            v.name,
            c.name,
            c.search ? `\`${c.search}\`` : "",
            `${ms(b.p50)} / ${ms(b.p95)}`,
            b.plan,
            `**${ms(a.p50)}** / ${ms(a.p95)}`,
            a.plan,
            a.matches === b.matches ? String(a.matches) : `${b.matches} -> ${a.matches}`,
          ];
        }),
      ),
    ),
  );
}

runMain(main);
