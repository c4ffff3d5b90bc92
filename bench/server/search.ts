/**
 * Search benchmark: p50/p95 of the real searchAlerts over 1,000,000 alerts of Victorian turnout text,
 * for each class of query, as an admin (admin_context: every agency) and as users scoped to 1-2
 * agencies; plus the planner's own plan and each forced plan for comparison, and EXPLAIN output.
 *
 *   npx tsx bench/server/search.ts          (DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_ALERTS=200000 BENCH_RUNS=20 npx tsx bench/server/search.ts   (a quicker run)
 *   BENCH_NEIGHBOUR=1: with another CPU-bound process spinning on one core beside it
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Database, openDatabase } from "../../server/src/db/client.js";
import * as schema from "../../server/src/db/schema.js";
import {
  FIRST_ATTEMPT_TIMEOUT_MS,
  HEDGE_MS,
  PLAN_SETTINGS,
  type SearchOptions,
  type SearchPlan,
  TOGETHER_WALK_HEDGE_MS,
} from "../../server/src/modules/alerts/search-plans.js";
import { searchAlerts } from "../../server/src/modules/alerts/service.js";
import { sealWordBlocks } from "../../server/src/modules/alerts/word-blocks.js";
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
  type Scratch,
  scratchDatabase,
  startCpuNeighbour,
  table,
} from "./lib/common.js";
import { PagerTraffic } from "./lib/messages.js";
import { SEARCH_SCOPES, type SearchClass, type SearchScope, searchClasses } from "./lib/search-classes.js";
import { loadAlerts } from "./lib/search-load.js";

const TOTAL = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const BASELINE_RUNS = Number(process.env.BENCH_BASELINE_RUNS ?? 3);
/** Runs of the alternative design (walk first) per cell; 0 skips it. */
const ALT_RUNS = Number(process.env.BENCH_ALT_RUNS ?? 20);

type QueryClass = SearchClass;
type Scope = SearchScope & { actor: Actor };

let phones = 0;

async function createUser(
  pool: pg.Pool,
  name: string,
  isAdmin: boolean,
  agencyIds: number[],
): Promise<Actor> {
  phones += 1;
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
     VALUES ($1, 'Bench', $2, $3, true, true) RETURNING id`,
    [name, `+614${String(process.pid % 10_000).padStart(4, "0")}${String(phones).padStart(4, "0")}`, isAdmin],
  );
  const userId = rows[0]!.id;
  for (const agencyId of agencyIds) {
    await pool.query("INSERT INTO user_agencies (user_id, agency_id) VALUES ($1, $2)", [userId, agencyId]);
  }
  return { userId, sessionId: "00000000-0000-0000-0000-000000000000", isAdmin };
}

type Captured = { sql: string; params: unknown[] };

async function main() {
  // BENCH_KEEP_DB=1 keeps the loaded database (its name is printed); BENCH_REUSE_DB=<name> measures
  // on such a database again without loading (and drops it at the end unless BENCH_KEEP_DB is set).
  const reuse = process.env.BENCH_REUSE_DB;
  if (reuse && !/^(turnout_test_|bench)\w*$/.test(reuse))
    throw new Error(
      "BENCH_REUSE_DB must name a turnout_test_ database or one load-search.ts made (bench...)",
    );
  // A database load-search.ts made (bench...) is never dropped: loading it again takes minutes.
  const keep = Boolean(process.env.BENCH_KEEP_DB) || Boolean(reuse?.startsWith("bench"));
  const scratch = reuse ? existingDatabase(reuse) : await scratchDatabase({ keep });
  const dropScratch = () => (keep ? Promise.resolve() : scratch.drop());
  log(
    `${reuse ? "reusing" : "scratch"} database ${new URL(scratch.url).pathname.slice(1)}${keep ? " (kept)" : ""}`,
  );
  if (reuse && !keep) onExit(() => scratch.drop());
  // Migrated as the server opens it; its `quick` database is where the server runs the terms' word
  // look-ups (connections whose statements time out quickly), and the search below does the same.
  const migrated = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
  const quick = migrated.quick;

  // A guard on every statement, so a pathological plan cannot run for minutes.
  const pool = new pg.Pool({ connectionString: scratch.url, max: 10, options: "-c statement_timeout=20000" });
  pool.on("error", () => {}); // an idle connection closed when the database is dropped
  let capture: Captured[] | null = null;
  const db = drizzle({
    client: pool,
    schema,
    logger: { logQuery: (sql, params) => capture?.push({ sql, params }) },
  }) as unknown as Database;

  const loadClient = await pool.connect();
  const agencies = reuse ? await readAgencies(loadClient) : await createAgencies(loadClient);
  loadClient.release();
  const traffic = new PagerTraffic(1);
  const t0 = performance.now();
  if (!reuse) await loadAlerts(pool, agencies, traffic, TOTAL, log);
  const loadSeconds = (performance.now() - t0) / 1000;
  // The word blocks, as the server's sealer fills them in the background after a start (BENCH_BLOCKS=0:
  // neither filled nor read, the "before" figures).
  if (process.env.BENCH_BLOCKS !== "0") {
    const sealStart = performance.now();
    let blocks = 0;
    for (let more = true; more; ) {
      const step = await sealWordBlocks(db);
      blocks += step.filled;
      more = step.pending;
    }
    log(`word blocks: ${blocks} blocks filled in ${((performance.now() - sealStart) / 1000).toFixed(1)} s`);
  }
  // The scope reads alerts.agency_ids: it must match the recipients exactly (the loader sets it itself).
  // Counting (this check, the matches per cell) reads whole tables at 10 M: no statement timeout.
  const counter = new pg.Pool({ connectionString: scratch.url, max: 1 });
  const { rows: wrong } = await counter.query<{ n: string }>(
    `SELECT count(*) AS n FROM alerts a
      WHERE a.agency_ids IS DISTINCT FROM ARRAY(SELECT DISTINCT r.agency_id FROM alert_recipients r
                                                 WHERE r.alert_id = a.id ORDER BY 1)`,
  );
  if (Number(wrong[0]!.n) !== 0)
    throw new Error(`${wrong[0]!.n} alerts with agency_ids unlike their recipients`);
  const total = reuse
    ? Number((await counter.query<{ n: string }>("SELECT count(*) AS n FROM alerts")).rows[0]!.n)
    : TOTAL;
  const size = await pool.query<{ alerts: string; trgm: string; recipients: string }>(
    `SELECT pg_size_pretty(pg_total_relation_size('alerts')) AS alerts,
            pg_size_pretty(pg_relation_size('alerts_agency_ids_message_idx')) AS trgm,
            (SELECT count(*) FROM alert_recipients)::text AS recipients`,
  );

  const byCode = new Map(agencies.map((a) => [a.code, a.id]));
  // BENCH_SCOPES=admin,small measures only the admin and the small agency (the targets' two viewers).
  const only = process.env.BENCH_SCOPES?.split(",");
  const scopes: Scope[] = SEARCH_SCOPES.filter(
    (s) =>
      !only ||
      only.some((o) => (o === "admin" ? s.adminContext : o === "small" ? s.small : s.name.includes(o))),
  ).map((s) => ({ ...s, actor: null! }));
  for (const s of scopes) {
    s.actor = await createUser(
      pool,
      s.name,
      s.adminContext,
      s.agencyCodes.map((c) => byCode.get(c)!),
    );
  }
  const classes: QueryClass[] = searchClasses(traffic);
  const mid = classes.find((c) => c.name === "mid-frequency suburb")!.search;

  const run = async (scope: Scope, q: QueryClass, options: SearchOptions) => {
    let plan: SearchPlan = "plain";
    let cancelled = false;
    const started = performance.now();
    const result = await searchAlerts(
      db,
      scope.actor,
      { limit: 50, search: q.search || undefined, adminContext: scope.adminContext },
      {
        ...options,
        engine: "postgres",
        quick,
        // BENCH_WORDS=0: without the word prefilter (the "before" figures on the same database).
        words: process.env.BENCH_WORDS !== "0",
        blocks: process.env.BENCH_BLOCKS !== "0",
        onPlan: (p, d) => {
          plan = p;
          cancelled = d.cancelled;
        },
      },
    );
    const ids = (result.data as { id: number }[]).map((a) => a.id);
    return { ms: performance.now() - started, ids, next: result.pagination.next_cursor, plan, cancelled };
  };
  const pageQuery = async (scope: Scope, q: QueryClass): Promise<Captured> => {
    capture = [];
    // The shipped plan (the planner's own plan alone can run for minutes at 10 M); same statement.
    await run(scope, q, { plan: "auto" });
    const main = capture.find(
      (c) =>
        !/^explain/i.test(c.sql) &&
        /from "alerts"/.test(c.sql) &&
        /order by "alerts"."sent_at" desc, "alerts"."id" desc/.test(c.sql),
    );
    capture = null;
    return main!;
  };

  // How many alerts each query matches in each scope (for the table), counted once.
  const matches = new Map<string, number>();
  for (const scope of scopes) {
    for (const q of classes) {
      const main = await pageQuery(scope, q);
      // The same statement with the limit (its last parameter) lifted.
      const params = [...main.params.slice(0, -1), 100_000_000];
      const count = await counter.query<{ n: string }>(`SELECT count(*) AS n FROM (${main.sql}) t`, params);
      matches.set(`${scope.name}|${q.name}`, Number(count.rows[0]!.n));
    }
  }
  await counter.end();
  log("counted matches; measuring");

  /** Up to `runs` timed calls (after 2 warm-up calls), stopping early after `budgetMs`. */
  const measure = async (
    scope: Scope,
    q: QueryClass,
    options: SearchOptions,
    runs: number,
    budgetMs: number,
  ) => {
    for (let i = 0; i < 2; i++) await run(scope, q, options);
    const times: number[] = [];
    const plans = new Map<string, number>();
    const started = performance.now();
    let ids: number[] = [];
    for (let i = 0; i < runs && performance.now() - started < budgetMs; i++) {
      const r = await run(scope, q, options);
      times.push(r.ms);
      const key = options.strategy === "timeout" && r.cancelled ? "bitmap after cancel" : r.plan;
      plans.set(key, (plans.get(key) ?? 0) + 1);
      ids = r.ids;
    }
    return { times, plans, ids };
  };

  type Row = { scope: Scope; q: QueryClass; times: number[]; plans: Map<string, number>; ids: number[] };
  const results: Row[] = [];
  /** The alternatives measured beside the shipped design (same cells, ALT_RUNS each). */
  const alternatives: { label: string; options: SearchOptions }[] = [
    {
      label: `timeout design (${FIRST_ATTEMPT_TIMEOUT_MS} ms)`,
      options: { plan: "auto", strategy: "timeout" },
    },
    { label: "walk first, hedge", options: { plan: "auto", strategy: "race", firstAttempt: "walk" } },
    // Before issue 32: the walk joined the word blocks after 3 ms rather than when they decline.
    {
      label: `walk beside the blocks at ${TOGETHER_WALK_HEDGE_MS} ms`,
      options: { plan: "auto", hedgeMs: TOGETHER_WALK_HEDGE_MS },
    },
  ];
  const altTimes = new Map<string, number[]>();
  // BENCH_NEIGHBOUR=1: another CPU-bound process spins on one core while everything is measured.
  if (process.env.BENCH_NEIGHBOUR === "1") {
    startCpuNeighbour();
    log("a CPU-bound neighbour spins on one core while measuring");
  }
  for (const scope of scopes) {
    for (const q of classes) {
      const shipped = await measure(scope, q, { plan: "auto" }, RUNS, 30_000);
      results.push({ scope, q, ...shipped });
      log(
        `${scope.name} / ${q.name}: p50 ${ms(percentile(shipped.times, 50))} p95 ${ms(percentile(shipped.times, 95))}`,
      );
      for (const alt of q.search && ALT_RUNS > 0 ? alternatives : []) {
        const m = await measure(scope, q, alt.options, ALT_RUNS, 15_000);
        altTimes.set(`${alt.label}|${scope.name}|${q.name}`, m.times);
      }
    }
  }

  // Each plan forced, without a timeout; and the same pages (first two) from every plan.
  const baselines: {
    scope: string;
    q: string;
    plain: number;
    walk: number;
    bitmap: number;
    same: boolean;
  }[] = [];
  for (const scope of BASELINE_RUNS > 0 ? scopes : []) {
    for (const q of classes.filter((c) => c.search)) {
      const shipped = results.find((r) => r.scope === scope && r.q === q)!;
      const timed: Record<"plain" | "walk" | "bitmap", number> = { plain: 0, walk: 0, bitmap: 0 };
      let same = true;
      for (const plan of ["plain", "walk", "bitmap"] as const) {
        const times: number[] = [];
        for (let i = 0; i < BASELINE_RUNS; i++) {
          const r = await run(scope, q, { plan });
          times.push(r.ms);
          if (i === 0) {
            if (JSON.stringify(r.ids) !== JSON.stringify(shipped.ids)) same = false;
            if (r.next) {
              const page2 = (p: SearchOptions["plan"]) =>
                searchAlerts(
                  db,
                  scope.actor,
                  { limit: 50, search: q.search, adminContext: scope.adminContext, cursor: r.next! },
                  { engine: "postgres", plan: p },
                );
              const [a, b] = await Promise.all([page2(plan), page2("auto")]);
              if (JSON.stringify(a) !== JSON.stringify(b)) same = false;
            }
          }
          if (r.ms > 3_000) break; // a slow plan is measured once, not three times
        }
        timed[plan] = percentile(times, 50);
      }
      baselines.push({ scope: scope.name, q: q.name, ...timed, same });
      log(
        `forced ${scope.name} / ${q.name}: own ${ms(timed.plain)} walk ${ms(timed.walk)} bitmap ${ms(timed.bitmap)}`,
      );
    }
  }

  // EXPLAIN (ANALYZE, BUFFERS) of the plan that answered, with the same SQL, parameters and settings.
  const explains: string[] = [];
  const explain = async (scope: Scope, q: QueryClass, settings: Record<string, string>, label: string) => {
    const main = await pageQuery(scope, q);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (const [k, v] of Object.entries(settings))
        await client.query("SELECT set_config($1, $2, true)", [k, v]);
      const out = await client
        .query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${main.sql}`, main.params)
        .catch((err: { code?: string }) => {
          // A trap at 10 M can pass the statement timeout: say so instead of a plan.
          if (err.code !== "57014") throw err;
          return { rows: [{ "QUERY PLAN": "(cancelled by the 20 s statement timeout)" }] };
        });
      await client.query("ROLLBACK");
      explains.push(
        `#### ${q.name} (\`${q.search}\`), ${scope.name}: ${label}\n\n\`\`\`\n${out.rows.map((r) => r["QUERY PLAN"]).join("\n")}\n\`\`\``,
      );
    } finally {
      client.release();
    }
  };
  const sample = await pageQuery(scopes.at(-1)!, classes[4]!);
  const sqlText = `${sample.sql}\n-- params: ${JSON.stringify(sample.params)}`;
  // Admin, a fire-brigade user and the small SES agency (the cells the agency_ids index was made for).
  for (const scope of scopes.filter((s) => s.adminContext || s.small || s.agencyCodes.length > 1)) {
    for (const q of classes.filter((c) => c.required)) {
      const shipped = results.find((r) => r.scope === scope && r.q === q)!;
      // The plan that answered most often: the planner's own, or the other one that joined it.
      const [won] = [...shipped.plans].sort((a, b) => b[1] - a[1])[0]!;
      await explain(
        scope,
        q,
        won === "bitmap" ? PLAN_SETTINGS.bitmap : won === "walk" ? PLAN_SETTINGS.walk : {},
        won === "bitmap"
          ? `the trigram plan (answered first, having joined after ${HEDGE_MS} ms)`
          : won === "walk"
            ? `the walk (answered first, having joined after ${HEDGE_MS} ms: the planner chose the trigram plan)`
            : "the planner's own plan (answered first)",
      );
    }
  }
  // The traps, for the record: the planner's own plan for 0 results, and the trigram plan for a common word.
  await explain(scopes[0]!, classes[4]!, {}, "the planner's own plan, run to the end (the trap)");
  await explain(scopes[0]!, classes[0]!, PLAN_SETTINGS.bitmap, "the trigram plan forced (the other trap)");

  const env = await environment(scratch.url);
  const s = size.rows[0]!;
  const out: string[] = [];
  out.push("```", env, "```", "");
  out.push(
    `Data: ${total.toLocaleString("en-AU")} alerts (${s.recipients} recipient rows, 10 agencies, 1,000 capcodes); ` +
      `alerts table with indexes ${s.alerts}, GIN index (agency_ids, message gin_trgm_ops) ${s.trgm}` +
      (reuse
        ? " (database reused from an earlier run). "
        : `; loaded, indexed and analysed in ${loadSeconds.toFixed(0)} s. `) +
      `Mid-frequency suburb: ${mid}. ${RUNS} runs per cell after 2 warm-up runs (fewer if a cell passes 30 s); ` +
      "time is the whole searchAlerts call (scope lookup, page query, presenting the page), limit 50. " +
      `"plan (runs)": which plan answered first ("planner": the planner's own plan, alone for ${HEDGE_MS} ms; ` +
      '"bitmap" / "walk": the other plan that joined it). Alternatives, same cells: "timeout design" runs the planner\'s ' +
      `own plan under a ${FIRST_ATTEMPT_TIMEOUT_MS} ms statement timeout, then the trigram plan; "walk first, hedge" ` +
      "forces the walk as the first attempt.",
    "",
  );
  out.push(
    table(
      [
        "scope",
        "query",
        "search",
        "matches",
        "p50 ms",
        "p95 ms",
        "max ms",
        "plan (runs)",
        "p95 < 50",
        ...(ALT_RUNS > 0 ? alternatives.map((a) => `${a.label} p50/p95`) : []),
      ],
      results.map((r) => {
        const p95 = percentile(r.times, 95);
        return [
          r.scope.name,
          r.q.name,
          r.q.search ? `\`${r.q.search}\`` : "",
          String(matches.get(`${r.scope.name}|${r.q.name}`) ?? ""),
          ms(percentile(r.times, 50)),
          ms(p95),
          ms(Math.max(...r.times)),
          [...r.plans].map(([k, v]) => `${k} ${v}`).join(", "),
          r.q.required ? (p95 < 50 ? "yes" : "**no**") : "(extra)",
          ...(ALT_RUNS > 0
            ? alternatives.map((a) => {
                const t = altTimes.get(`${a.label}|${r.scope.name}|${r.q.name}`);
                return t ? `${ms(percentile(t, 50))} / ${ms(percentile(t, 95))}` : "";
              })
            : []),
        ];
      }),
    ),
  );
  if (baselines.length) {
    out.push(
      "",
      `Each plan forced, without a timeout (p50 of up to ${BASELINE_RUNS} runs, ms); "same page" compares its first two pages with the shipped design's:`,
      "",
      table(
        ["scope", "query", "planner's own", "walk", "bitmap", "same page"],
        baselines.map((b) => [
          b.scope,
          b.q,
          ms(b.plain),
          ms(b.walk),
          ms(b.bitmap),
          b.same ? "yes" : "**NO**",
        ]),
      ),
    );
  }
  out.push("", "The page query (user scope, 0-result class):", "", "```sql", sqlText, "```", "", ...explains);
  console.log(out.join("\n"));
  await Promise.all([pool.end(), migrated.close()]);
  await dropScratch();
}

/** A database made by an earlier run with BENCH_KEEP_DB. */
function existingDatabase(name: string): Scratch {
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: baseDatabaseUrl() });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), drop };
}

runMain(main);
