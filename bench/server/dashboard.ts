/**
 * System Monitor benchmark: p50/p95 of GET /api/admin/system/dashboard (everything the monitor's first
 * paint needs) from the real server over PostgreSQL holding BENCH_ALERTS alerts spread over two years,
 * 500 signed-in users and 10,000 system log entries; also /admin/system/messages on its own.
 *
 *   npx tsx bench/server/dashboard.ts                       (1,000,000 alerts)
 *   BENCH_ALERTS=10000000 npx tsx bench/server/dashboard.ts (10,000,000 alerts)
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { signSessionToken } from "../../server/src/shared/tokens.js";
import { createAgencies } from "./lib/agencies.js";
import {
  environment,
  log,
  ms,
  percentile,
  repoRoot,
  runMain,
  scratchDatabase,
  startServer,
  table,
} from "./lib/common.js";

const TOTAL = Number(process.env.BENCH_ALERTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 10;
const USERS = 500;
const LOG_ROWS = 10_000;
const SPAN_DAYS = 730;
const BATCH = 500_000;
const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0001";

/**
 * Loads the alerts in SQL batches with triggers and foreign keys off and the secondary indexes built
 * after, then fills the message counters with the statement migration 0011 runs for alerts already
 * stored (the insert triggers are off during a bulk load, as in search.ts).
 */
async function load(client: pg.Client): Promise<{ seconds: number }> {
  const t0 = performance.now();
  await client.query("SET session_replication_role = replica");
  await client.query("SET maintenance_work_mem = '1GB'");
  await client.query("SET statement_timeout = 0");
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'public' AND tablename IN ('alerts', 'alert_recipients')
        AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
  );
  for (const i of indexes) await client.query(`DROP INDEX ${i.indexname}`);
  const { rows: caps } = await client.query<{ id: number; capcode: string; agency_id: number }>(
    "SELECT id, capcode, agency_id FROM capcodes ORDER BY id",
  );
  const start = Date.now() - SPAN_DAYS * 86_400_000;
  for (let first = 1; first <= TOTAL; first += BATCH) {
    const last = Math.min(TOTAL, first + BATCH - 1);
    // Types in the proportions of real traffic (most emergency), capcodes spread over the ten agencies.
    await client.query(
      `WITH caps AS (SELECT $3::int[] AS id, $4::text[] AS code, $5::int[] AS agency),
       rows AS (
         SELECT i, 1 + ((i::bigint * 7919) % cardinality(caps.id))::int AS c,
                to_timestamp(($6::bigint + (i::double precision / $7) * $8::double precision) / 1000) AS at,
                CASE WHEN i % 10 < 6 THEN 'emergency' WHEN i % 10 < 8 THEN 'non-emergency'
                     WHEN i % 10 = 8 THEN 'administrative' ELSE 'standard' END AS type
           FROM generate_series($1::int, $2::int) AS i, caps)
       INSERT INTO alerts (id, type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, area,
                           source, dedupe_hash, sent_at, created_at)
       SELECT i, type, '@@ALERT F' || (250000000 + i) || ' STRUC1 SHED FIRE ' || i || ' EXAMPLE RD',
              'ALERT F' || (250000000 + i) || ' STRUC1 SHED FIRE ' || i || ' EXAMPLE RD',
              caps.code[c], caps.id[c], caps.agency[c], ARRAY[caps.agency[c]], NULL, 'bench', md5(i::text), at, at
         FROM rows, caps`,
      [
        first,
        last,
        caps.map((c) => c.id),
        caps.map((c) => c.capcode),
        caps.map((c) => c.agency_id),
        start,
        TOTAL,
        SPAN_DAYS * 86_400_000,
      ],
    );
    await client.query(
      `INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
       SELECT id, capcode_id, agency_id FROM alerts WHERE id BETWEEN $1 AND $2`,
      [first, last],
    );
    log(`loaded ${last} alerts`);
  }
  log(`building ${indexes.length} indexes`);
  for (const i of indexes) await client.query(i.indexdef);
  await client.query(`SELECT setval(pg_get_serial_sequence('alerts', 'id'), ${TOTAL})`);
  await client.query("RESET session_replication_role");
  await client.query(backfillStatement());
  await client.query("VACUUM (ANALYZE) alerts, alert_recipients, message_counts");
  return { seconds: (performance.now() - t0) / 1000 };
}

/** Migration 0010's statement that counts the alerts stored before it. */
function backfillStatement(): string {
  const migration = readFileSync(path.join(repoRoot, "server/drizzle/0011_message_counters.sql"), "utf8");
  const statement = migration.split("--> statement-breakpoint").at(-1)!;
  if (!statement.includes("INSERT INTO message_counts")) throw new Error("0010's last statement moved");
  return statement;
}

/** 500 users (5 admins) with a device session each, and the first admin's token. */
async function createUsers(client: pg.Client): Promise<string> {
  const { rows: users } = await client.query<{ id: number }>(
    `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
     SELECT 'Bench', 'User ' || i, '+6149' || lpad(i::text, 7, '0'), i <= 5, true, true
       FROM generate_series(1, $1::int) AS i ORDER BY i RETURNING id`,
    [USERS],
  );
  await client.query(
    `INSERT INTO user_agencies (user_id, agency_id)
     SELECT u, (SELECT id FROM agencies WHERE code LIKE 'B-%' ORDER BY id OFFSET (u % 10) LIMIT 1)
       FROM unnest($1::int[]) AS u`,
    [users.map((u) => u.id)],
  );
  const expiresAt = new Date(Date.now() + 86_400_000);
  const { rows: sessions } = await client.query<{ id: string; user_id: number }>(
    `INSERT INTO device_sessions (user_id, device_id, device_info, expires_at, last_activity)
     SELECT u, 'bench-device-' || u,
            jsonb_build_object('device', (ARRAY['Mobile', 'Desktop', 'Tablet'])[1 + u % 3]), $2,
            now() - make_interval(mins => u % 1440)
       FROM unnest($1::int[]) AS u RETURNING id, user_id`,
    [users.map((u) => u.id), expiresAt],
  );
  const admin = sessions.find((s) => s.user_id === users[0]!.id)!;
  return signSessionToken(new TextEncoder().encode(JWT_SECRET), {
    userId: admin.user_id,
    sessionId: admin.id,
    expiresAt,
  });
}

async function measure(url: string, token: string): Promise<{ p50: number; p95: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    if (i >= WARMUP) times.push(performance.now() - t);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times) };
}

async function main() {
  const scratch = await scratchDatabase();
  // The server migrates the scratch database on its first start; the data goes in afterwards.
  const first = await startServer(scratch.url, { JWT_SECRET });
  first.child.kill("SIGTERM");
  await new Promise((r) => first.child.once("exit", r));

  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    await createAgencies(client);
    log(`loading ${TOTAL} alerts`);
    const loaded = await load(client);
    log(`loaded in ${loaded.seconds.toFixed(0)} s`);
    const token = await createUsers(client);
    await client.query(
      `INSERT INTO system_logs (level, category, message, timestamp)
       SELECT (ARRAY['info', 'warn', 'error', 'critical'])[1 + i % 4], 'server', 'bench entry ' || i,
              now() - make_interval(secs => i)
         FROM generate_series(1, $1::int) AS i`,
      [LOG_ROWS],
    );
    const { rows: sizes } = await client.query<{ counters: string; db: string }>(
      `SELECT (SELECT count(*) FROM message_counts) AS counters,
              pg_size_pretty(pg_database_size(current_database())) AS db`,
    );

    const server = await startServer(scratch.url, { JWT_SECRET });
    const rows: (string | number)[][] = [];
    for (const path of ["/api/admin/system/dashboard", "/api/admin/system/messages"]) {
      const r = await measure(`${server.url}${path}`, token);
      rows.push([path, TOTAL.toLocaleString("en-AU"), RUNS, ms(r.p50), ms(r.p95), ms(r.max)]);
      log(`${path}: p50 ${ms(r.p50)} ms, p95 ${ms(r.p95)} ms`);
    }
    const check = await fetch(`${server.url}/api/admin/system/messages`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages = ((await check.json()) as { data: { total_messages: number } }).data;
    if (messages.total_messages !== TOTAL) {
      throw new Error(`total_messages is ${messages.total_messages}, expected ${TOTAL}`);
    }
    console.log(table(["call", "alerts", "runs", "p50 ms", "p95 ms", "max ms"], rows));
    console.log(
      `\nload: ${loaded.seconds.toFixed(0)} s; message_counts rows: ${sizes[0]!.counters}; database ${sizes[0]!.db}`,
    );
    console.log(await environment(scratch.url));
  } finally {
    await client.end();
  }
}

runMain(main);
