/**
 * Search after heavy ingest (issue 32): every search class before and right after ingesting
 * BENCH_INGEST messages through the API at the fastest rate it takes (batches of 100 from 4 senders),
 * with no VACUUM in between, for each way of handling the GIN indexes' pending lists.
 *
 *   BENCH_DB=bench200k npx tsx bench/server/search-after-ingest.ts
 *   BENCH_INGEST=100000 BENCH_SAMPLES=15 BENCH_CONFIGS=as-migrated,pending-4mb,fastupdate-off
 *
 * Each configuration gets its own copy of BENCH_DB (CREATE DATABASE … TEMPLATE, dropped after), with
 * the GIN indexes of alerts and search_words set as it says:
 * - as-migrated: as the server's migrations leave them (whatever they set);
 * - pending-4mb: PostgreSQL's default (fastupdate on, gin_pending_list_limit 4 MB): how it was before;
 * - pending-256kb: fastupdate on, gin_pending_list_limit 256 kB;
 * - fastupdate-off: no pending list, every insert goes into the index at once.
 * Autovacuum runs as configured on the server (PostgreSQL's defaults here). Search: GET
 * /api/alerts/search, first page of 50, as an admin in admin context, BENCH_SAMPLES requests of each
 * class, the classes interleaved. The pending lists' sizes come from pgstattuple's pgstatginindex.
 */
import http from "node:http";
import os from "node:os";
import { ALERT_PAGE_SIZE } from "@turnout/domain";
import pg from "pg";
import { signSessionToken } from "../../server/src/shared/tokens.js";
import { machineLine } from "../support/machine.js";
import {
  baseDatabaseUrl,
  log,
  ms,
  onExit,
  percentile,
  runMain,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";
import { PagerTraffic, RARE_SUBURB, rng } from "./lib/messages.js";
import { SEARCH_CLASSES } from "./lib/search-classes.js";

const INGEST = Number(process.env.BENCH_INGEST ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);
const SENDERS = 4;
const BATCH = 100;
const KEY = "bench-ingest-key-0123456789";
const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0032";
const CONFIGS = (process.env.BENCH_CONFIGS ?? "as-migrated,pending-4mb,fastupdate-off").split(",");

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function request(
  method: "GET" | "POST",
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: body ? { ...headers, "content-length": String(Buffer.byteLength(body)) } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            ms: performance.now() - t0,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** SQL setting the GIN indexes of alerts and search_words as a configuration says (null: leave them). */
function configSql(config: string, index: string): string | null {
  switch (config) {
    case "as-migrated":
      return null;
    case "pending-4mb":
      return `ALTER INDEX ${index} SET (fastupdate = on, gin_pending_list_limit = 4096)`;
    case "pending-256kb":
      return `ALTER INDEX ${index} SET (fastupdate = on, gin_pending_list_limit = 256)`;
    case "fastupdate-off":
      return `ALTER INDEX ${index} SET (fastupdate = off)`;
    default:
      throw new Error(
        `unknown configuration ${config} (as-migrated, pending-4mb, pending-256kb, fastupdate-off)`,
      );
  }
}

type Pending = { index: string; options: string; pendingPages: number; pendingTuples: number };

async function pendingLists(client: pg.Client): Promise<Pending[]> {
  const { rows } = await client.query<{
    index: string;
    options: string | null;
    pending_pages: number;
    pending_tuples: string;
  }>(
    `SELECT c.relname AS index, array_to_string(c.reloptions, ', ') AS options, s.pending_pages,
            s.pending_tuples::text
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
       JOIN pg_class t ON t.oid = i.indrelid, LATERAL pgstatginindex(c.oid) s
      WHERE a.amname = 'gin' AND t.relname IN ('alerts', 'search_words') ORDER BY 1`,
  );
  return rows.map((r) => ({
    index: r.index,
    options: r.options ?? "",
    pendingPages: r.pending_pages,
    pendingTuples: Number(r.pending_tuples),
  }));
}

/**
 * The rare word's lookup in search_words (what every search term does first), run in the database with
 * EXPLAIN ANALYZE: its execution time and the buffers it touched, which the load on the machine does not
 * change (its pending list is read whole).
 */
async function wordLookup(client: pg.Client): Promise<{ ms: number; buffers: number }> {
  const runs: { ms: number; buffers: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const { rows } = await client.query<{
      "QUERY PLAN": [{ Plan: Record<string, number>; "Execution Time": number }];
    }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       SELECT DISTINCT word FROM search_words WHERE word LIKE lower('%${RARE_SUBURB}%') LIMIT 65`,
    );
    const plan = rows[0]!["QUERY PLAN"][0];
    runs.push({
      ms: plan["Execution Time"],
      buffers: (plan.Plan["Shared Hit Blocks"] ?? 0) + (plan.Plan["Shared Read Blocks"] ?? 0),
    });
  }
  return {
    ms: percentile(
      runs.map((r) => r.ms),
      50,
    ),
    buffers: percentile(
      runs.map((r) => r.buffers),
      50,
    ),
  };
}

async function measureSearch(baseUrl: string, token: string): Promise<number[][]> {
  const times = SEARCH_CLASSES.map(() => [] as number[]);
  for (let s = -1; s < SAMPLES; s++)
    for (const [i, q] of SEARCH_CLASSES.entries()) {
      const params = new URLSearchParams({ limit: String(ALERT_PAGE_SIZE), admin_context: "true" });
      if (q.search) params.set("search", q.search);
      const r = await request("GET", `${baseUrl}/api/alerts/search?${params}`, {
        authorization: `Bearer ${token}`,
      });
      if (r.status !== 200) throw new Error(`search ${q.name}: ${r.status} ${r.text.slice(0, 200)}`);
      if (s >= 0) times[i]!.push(r.ms);
    }
  return times;
}

async function main() {
  const source = process.env.BENCH_DB ?? "bench1m";
  if (!/^bench\w*$/.test(source)) throw new Error("BENCH_DB must name a database load-search.ts made");
  const load0 = os.loadavg();
  const out: string[] = [];
  const summary: (string | number)[][] = [];
  for (const config of CONFIGS) {
    const name = `${source}_ingest_${process.pid}`;
    const admin = new pg.Client({ connectionString: baseDatabaseUrl() });
    await admin.connect();
    const t0 = performance.now();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
    log(`${config}: ${name} copied from ${source} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const drop = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    };
    onExit(async () => {
      await drop();
      await admin.end().catch(() => {});
    });
    const url = new URL(baseDatabaseUrl());
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
      // The server migrates the copy first (a migration of this branch may set the indexes), then the
      // configuration is applied over it.
      const server = await startServer(url.toString(), { INGEST_API_KEY: KEY, JWT_SECRET });
      for (const p of await pendingLists(client)) {
        const statement = configSql(config, p.index);
        if (statement) await client.query(statement);
      }
      const user = await client.query<{ id: number }>(
        `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
         VALUES ('Bench', 'After ingest', '+61400003232', true, true, true) RETURNING id`,
      );
      const expiresAt = new Date(Date.now() + 86_400_000);
      const session = await client.query<{ id: string }>(
        "INSERT INTO device_sessions (user_id, device_id, expires_at) VALUES ($1, 'bench-ingest', $2) RETURNING id",
        [user.rows[0]!.id, expiresAt],
      );
      const token = await signSessionToken(new TextEncoder().encode(JWT_SECRET), {
        userId: user.rows[0]!.id,
        sessionId: session.rows[0]!.id,
        expiresAt,
      });
      const capcodes = (await client.query<{ capcode: string }>("SELECT capcode FROM capcodes")).rows.map(
        (r) => r.capcode,
      );
      const pendingBefore = await pendingLists(client);
      const lookupBefore = await wordLookup(client);
      const before = await measureSearch(server.url, token);
      log(`${config}: searched before the ingest (load ${os.loadavg()[0]!.toFixed(2)})`);

      const traffic = new PagerTraffic(3232);
      const random = rng(3232);
      let sequence = 0;
      const batch = () =>
        JSON.stringify({
          messages: Array.from({ length: BATCH }, () => {
            sequence += 1;
            return {
              capcode: capcodes[Math.floor(random() * capcodes.length)]!,
              message: traffic.next().raw,
              timestamp: Math.floor(Date.now() / 1000),
              source: "bench-after-ingest",
              id: `after-ingest-${sequence}`,
            };
          }),
        });
      const batches = Math.ceil(INGEST / BATCH);
      let next = 0;
      let created = 0;
      const ingest0 = performance.now();
      const loadDuring: number[] = [];
      const sampler = setInterval(() => loadDuring.push(os.loadavg()[0]!), 5000);
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < batches) {
            next += 1;
            const r = await request(
              "POST",
              `${server.url}/api/ingest/messages`,
              { "content-type": "application/json", authorization: `Bearer ${KEY}` },
              batch(),
            );
            if (r.status !== 200) throw new Error(`ingest: ${r.status} ${r.text.slice(0, 200)}`);
            created += (JSON.parse(r.text) as { created?: number }).created ?? 0;
          }
        }),
      );
      clearInterval(sampler);
      const ingestSeconds = (performance.now() - ingest0) / 1000;
      const pendingAfter = await pendingLists(client);
      const lookupAfter = await wordLookup(client);
      const after = await measureSearch(server.url, token);
      log(`${config}: ${created} messages in ${ingestSeconds.toFixed(0)} s; searched after`);
      await stopChild(server.child);

      out.push(
        `### ${config}`,
        "",
        `Ingest: ${created.toLocaleString("en-AU")} messages stored in ${ingestSeconds.toFixed(1)} s ` +
          `(**${(created / ingestSeconds).toFixed(0)} messages/s**; load average during it ` +
          `${loadDuring.length ? `${Math.min(...loadDuring).toFixed(1)}-${Math.max(...loadDuring).toFixed(1)}` : os.loadavg()[0]!.toFixed(1)}).`,
        "",
        table(
          ["GIN index", "options", "pending pages / tuples before", "after the ingest"],
          pendingAfter.map((p, i) => [
            p.index,
            p.options || "(defaults)",
            `${pendingBefore[i]?.pendingPages ?? "-"} / ${pendingBefore[i]?.pendingTuples ?? "-"}`,
            `${p.pendingPages} / ${p.pendingTuples}`,
          ]),
        ),
        "",
        `The rare word's lookup in search_words (EXPLAIN ANALYZE, median of 5): before ${ms(lookupBefore.ms)} ms, ` +
          `${lookupBefore.buffers} buffers; after ${ms(lookupAfter.ms)} ms, ${lookupAfter.buffers} buffers.`,
        "",
        table(
          ["class", "before p50 / p95 ms", "after p50 / p95 ms", "after ÷ before (p50)"],
          SEARCH_CLASSES.map((q, i) => [
            q.name,
            `${ms(percentile(before[i]!, 50))} / ${ms(percentile(before[i]!, 95))}`,
            `${ms(percentile(after[i]!, 50))} / ${ms(percentile(after[i]!, 95))}`,
            `${(percentile(after[i]!, 50) / percentile(before[i]!, 50)).toFixed(2)}×`,
          ]),
        ),
        "",
      );
      summary.push([
        config,
        (created / ingestSeconds).toFixed(0),
        `${ms(lookupBefore.ms)} → ${ms(lookupAfter.ms)} ms, ${lookupBefore.buffers} → ${lookupAfter.buffers} buffers`,
        ...SEARCH_CLASSES.map(
          (_, i) => `${(percentile(after[i]!, 50) / percentile(before[i]!, 50)).toFixed(2)}×`,
        ),
      ]);
    } finally {
      await client.end();
      await drop();
      await admin.end();
    }
  }
  console.log(
    [
      "```",
      machineLine(),
      `${new Date().toISOString()}; ${INGEST.toLocaleString("en-AU")} messages ingested into a copy of ${source} per configuration; ` +
        `${SAMPLES} searches of each class before and after`,
      `load average before (1/5/15): ${load0.map((l) => l.toFixed(2)).join(" ")}; after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
      "```",
      "",
      table(
        [
          "configuration",
          "ingest messages/s",
          "word lookup before → after",
          ...SEARCH_CLASSES.map((q) => `${q.name} after ÷ before`),
        ],
        summary,
      ),
      "",
      ...out,
    ].join("\n"),
  );
}

runMain(main);
