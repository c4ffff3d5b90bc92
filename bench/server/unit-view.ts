/**
 * The unit view (issue 26) against the agency-wide feed: p50/p95 of the real searchAlerts for a member
 * of one CFA district with a brigade of two capcodes (about 1 % of that district's pages), in the unit
 * view (the default) and in the agencies view, for the feed's first page, the third page (two cursors
 * on), and the search classes of bench/server/search.ts. Also checks that every unit-view page equals
 * the agencies view's alerts filtered to the brigade's capcodes.
 *
 *   npx tsx bench/server/unit-view.ts                       (200,000 alerts; DATABASE_URL as search.ts)
 *   BENCH_ALERTS=1000000 BENCH_RUNS=30 npx tsx bench/server/unit-view.ts
 *   BENCH_REUSE_DB=bench... npx tsx bench/server/unit-view.ts   (a database load-search.ts made)
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Database, openDatabase } from "../../server/src/db/client.js";
import * as schema from "../../server/src/db/schema.js";
import { type SearchInput, searchAlerts } from "../../server/src/modules/alerts/service.js";
import type { Actor } from "../../server/src/shared/guard.js";
import { createAgencies, readAgencies } from "./lib/agencies.js";
import {
  baseDatabaseUrl,
  environment,
  log,
  ms,
  onExit,
  percentile,
  runMain,
  scratchDatabase,
  table,
} from "./lib/common.js";
import { PagerTraffic } from "./lib/messages.js";
import { searchClasses } from "./lib/search-classes.js";
import { loadAlerts } from "./lib/search-load.js";

const TOTAL = Number(process.env.BENCH_ALERTS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const DISTRICT = "B-CFA-D2";

async function main() {
  const reuse = process.env.BENCH_REUSE_DB;
  if (reuse && !/^(turnout_test_|bench)\w*$/.test(reuse))
    throw new Error(
      "BENCH_REUSE_DB must name a turnout_test_ database or one load-search.ts made (bench...)",
    );
  const scratch = reuse
    ? {
        url: Object.assign(new URL(baseDatabaseUrl()), { pathname: `/${reuse}` }).toString(),
        drop: async () => {},
      }
    : await scratchDatabase();
  if (!reuse) onExit(() => scratch.drop());
  const migrated = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
  await migrated.close();
  const pool = new pg.Pool({ connectionString: scratch.url, max: 10, options: "-c statement_timeout=20000" });
  pool.on("error", () => {});
  const db = drizzle({ client: pool, schema }) as unknown as Database;

  const client = await pool.connect();
  const agencies = reuse ? await readAgencies(client) : await createAgencies(client);
  client.release();
  const traffic = new PagerTraffic(1);
  if (!reuse) await loadAlerts(pool, agencies, traffic, TOTAL, log);
  const district = agencies.find((a) => a.code === DISTRICT)!;

  // The brigade: the district's two busiest capcodes' neighbours would skew it; take two from the middle.
  const middle = Math.floor(district.capcodes.length / 2);
  const brigade = district.capcodes.slice(middle, middle + 2);
  const { rows: unitRows } = await pool.query<{ id: number }>(
    "INSERT INTO units (agency_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id",
    [district.id, `Bench brigade ${process.pid}`],
  );
  const unitId = unitRows[0]!.id;
  await pool.query("INSERT INTO unit_capcodes (unit_id, capcode_id) SELECT $1, unnest($2::int[])", [
    unitId,
    brigade.map((c) => c.id),
  ]);
  const { rows: userRows } = await pool.query<{ id: number }>(
    `INSERT INTO users (first_name, last_name, phone, is_verified, is_active)
     VALUES ('Unit', 'Bench', $1, true, true) RETURNING id`,
    [`+6148${String(process.pid % 1_000_000).padStart(7, "0")}`],
  );
  const userId = userRows[0]!.id;
  await pool.query("INSERT INTO user_agencies (user_id, agency_id) VALUES ($1, $2)", [userId, district.id]);
  await pool.query("INSERT INTO user_units (user_id, unit_id) VALUES ($1, $2)", [userId, unitId]);
  onExit(async () => {
    await pool.query("DELETE FROM users WHERE id = $1", [userId]);
    await pool.query("DELETE FROM units WHERE id = $1", [unitId]);
    await pool.end();
  });
  const actor: Actor = { userId, sessionId: "00000000-0000-0000-0000-000000000000", isAdmin: false };
  const { rows: counts } = await pool.query<{ district: string; brigade: string }>(
    `SELECT (SELECT count(*) FROM alert_recipients WHERE agency_id = $1) AS district,
            (SELECT count(DISTINCT alert_id) FROM alert_recipients WHERE capcode_id = ANY($2)) AS brigade`,
    [district.id, brigade.map((c) => c.id)],
  );
  log(`district pages ${counts[0]!.district}, brigade pages ${counts[0]!.brigade}`);

  const search = (input: Omit<SearchInput, "limit">) =>
    searchAlerts(db, actor, { limit: 50, ...input }, { engine: "postgres" });
  /** Ids of the third page of a search, following the cursors as a client does. */
  const third = async (input: Omit<SearchInput, "limit">) => {
    let cursor: string | undefined;
    let ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await search({ ...input, cursor });
      ids = (r.data as { id: number }[]).map((a) => a.id);
      cursor = r.pagination.next_cursor ?? undefined;
      if (!cursor) break;
    }
    return ids;
  };

  // The unit view must be the agencies view filtered to the brigade (first page of each class).
  const brigadeIds = new Set(
    (
      await pool.query<{ alert_id: string }>(
        "SELECT DISTINCT alert_id FROM alert_recipients WHERE capcode_id = ANY($1)",
        [brigade.map((c) => c.id)],
      )
    ).rows.map((r) => Number(r.alert_id)),
  );

  const cases = [
    ...searchClasses(traffic).map((c) => ({ name: c.name, input: { search: c.search || undefined } })),
  ];
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    const units = await search({ ...c.input, view: "units" });
    const wide = await search({ ...c.input, view: "agencies", limit: 100 } as Omit<SearchInput, "limit">);
    const unitIds = (units.data as { id: number }[]).map((a) => a.id);
    const expected = (wide.data as { id: number }[]).map((a) => a.id).filter((id) => brigadeIds.has(id));
    if (expected.length >= unitIds.length && unitIds.join() !== expected.slice(0, unitIds.length).join())
      throw new Error(`${c.name}: the unit view is not the agency view filtered to the brigade`);
    for (const view of ["units", "agencies"] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await search({ ...c.input, view });
        times.push(performance.now() - t);
      }
      rows.push([c.name, view, unitIds.length, ms(percentile(times, 50)), ms(percentile(times, 95))]);
    }
  }
  for (const view of ["units", "agencies"] as const) {
    const times: number[] = [];
    for (let i = 0; i < Math.ceil(RUNS / 3); i++) {
      const t = performance.now();
      await third({ view });
      times.push((performance.now() - t) / 3);
    }
    rows.push([
      "feed, pages 1-3 (per page)",
      view,
      "-",
      ms(percentile(times, 50)),
      ms(percentile(times, 95)),
    ]);
  }
  console.log(await environment(scratch.url));
  console.log(`alerts: ${reuse ? "reused" : TOTAL}; runs per cell: ${RUNS}`);
  console.log(table(["class", "view", "unit-view hits (page 1)", "p50 ms", "p95 ms"], rows));
}

runMain(main);
