/**
 * Ingest benchmark against the real server (a child process on a scratch PostgreSQL database):
 * (a) sustained messages/second through POST /api/ingest/messages in batches of 100 from a few
 *     concurrent senders, every message distinct (nothing deduplicated), 1,000 capcodes mapped;
 * (b) the same kind of batches written straight into the tables, back to back with (a): one multi-row
 *     INSERT of the 100 alerts and their recipients per batch (triggers and indexes as in production,
 *     type, text and hash computed before the clock starts), from as many connections as senders: the
 *     floor that (a) is compared with (issue 16: batches at least 75 % of this);
 * (c) one message per request, in sequence (or from BENCH_POSTERS posters at once), through the
 *     PagerMon-compatible POST /api/messages (form-encoded with an `apikey` header, as PagerMon's
 *     client/reader.js sends them).
 *
 *   npx tsx bench/server/ingest.ts       (DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_SECONDS=10 BENCH_SENDERS=4 BENCH_CPU_PROF=1 npx tsx bench/server/ingest.ts
 *   BENCH_GIN_FASTUPDATE=off npx tsx bench/server/ingest.ts   (GIN indexes without pending lists)
 *   BENCH_ONLY=pagermon BENCH_POSTERS=10 npx tsx bench/server/ingest.ts   (one message per request, 10 at once)
 *
 * BENCH_CPU_PROF=1 starts the server with --cpu-prof and prints where the .cpuprofile files are.
 */
import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { detectMessageType, displayText } from "@turnout/domain";
import pg from "pg";
import { textHash } from "../../server/src/modules/ingest/service.js";
import { type BenchCapcode, createAgencies } from "./lib/agencies.js";
import {
  environment,
  log,
  ms,
  percentile,
  runMain,
  scratchDatabase,
  sleep,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";
import { PagerTraffic, rng } from "./lib/messages.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const PAGERMON_SECONDS = Number(process.env.BENCH_PAGERMON_SECONDS ?? 20);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 4);
/** Concurrent posters in (c), each waiting for its reply before the next message (1: in sequence). */
const POSTERS = Number(process.env.BENCH_POSTERS ?? 1);
/** "batches" (with the raw inserts) or "pagermon" runs only that part. */
const ONLY = process.env.BENCH_ONLY ?? "";
/**
 * BENCH_GIN_FASTUPDATE=off: every GIN index of alerts and search_words without its pending list (each
 * insert goes into the index at once), to compare with PostgreSQL's default (on: inserts are appended
 * to a pending list that a later insert, or VACUUM, merges into the index in one go).
 */
const GIN_FASTUPDATE = process.env.BENCH_GIN_FASTUPDATE ?? "";
const BATCH = 100;
const KEY = "bench-ingest-key-0123456789";
/** Upper bounds on the loops, whatever the clock says. */
const MAX_BATCHES = 5_000;
const MAX_PAGERMON = 100_000;

/** Keep-alive HTTP, as a long-running reader holds its connection (lighter than fetch). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function request(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function main() {
  const scratch = await scratchDatabase();
  const profileDir = process.env.BENCH_CPU_PROF ? mkdtempSync(path.join(tmpdir(), "turnout-prof-")) : null;
  const server = await startServer(
    scratch.url,
    { INGEST_API_KEY: KEY },
    profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  );
  log(`server at ${server.url}, database ${new URL(scratch.url).pathname.slice(1)}`);

  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  if (GIN_FASTUPDATE) {
    const { rows } = await client.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes
        WHERE tablename IN ('alerts', 'search_words') AND indexdef LIKE '% USING gin %'`,
    );
    for (const { name } of rows) {
      await client.query(`ALTER INDEX ${name} SET (fastupdate = ${GIN_FASTUPDATE === "off" ? "off" : "on"})`);
    }
    log(`fastupdate = ${GIN_FASTUPDATE} on ${rows.map((r) => r.name).join(", ")}`);
  }
  const agencies = await createAgencies(client);
  const capcodes: BenchCapcode[] = agencies.flatMap((a) => a.capcodes);
  const countAlerts = async () =>
    Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM alerts")).rows[0]!.n);

  const traffic = new PagerTraffic(42);
  const random = rng(42);
  const pickCapcode = () => capcodes[Math.floor(random() * capcodes.length)]!;
  const capcode = () => pickCapcode().capcode;

  // Warm-up: JIT, connection pool, caches (not counted).
  const post = async (body: unknown) => {
    const started = performance.now();
    const res = await request(
      `${server.url}/api/ingest/messages`,
      { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      JSON.stringify(body),
    );
    if (res.status !== 200) throw new Error(`ingest: ${res.status} ${res.text}`);
    const json = JSON.parse(res.text) as { created?: number; duplicates?: number };
    return { ms: performance.now() - started, created: json.created ?? 0, duplicates: json.duplicates ?? 0 };
  };
  let sequence = 0;
  const batch = () => ({
    messages: Array.from({ length: BATCH }, () => {
      sequence += 1;
      return {
        capcode: capcode(),
        message: traffic.next().raw,
        timestamp: Math.floor(Date.now() / 1000),
        source: "bench-reader",
        id: `bench-${sequence}`,
      };
    }),
  });
  for (let i = 0; i < 20; i++) await post(batch());
  await sleep(500);

  // (a) batches of 100 from SENDERS concurrent senders for SECONDS.
  const before = await countAlerts();
  const latencies: number[] = [];
  let created = 0;
  let duplicates = 0;
  let batches = 0;
  const t0 = performance.now();
  const deadline = t0 + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (ONLY !== "pagermon" && performance.now() < deadline && batches < MAX_BATCHES) {
        batches += 1;
        const r = await post(batch());
        latencies.push(r.ms);
        created += r.created;
        duplicates += r.duplicates;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const stored = (await countAlerts()) - before;
  const batchRate = created / elapsed;
  log(`batches: ${batchRate.toFixed(0)} messages/s`);

  /** `count` batches of generated alerts as the column arrays of rawInserts' statement. */
  function rawBatches(count: number): unknown[][] {
    return Array.from({ length: count }, () => {
      const cols = {
        type: [] as string[],
        raw: [] as string[],
        message: [] as string[],
        capcode: [] as string[],
        capcodeId: [] as number[],
        agencyId: [] as number[],
        hash: [] as string[],
      };
      for (let i = 0; i < BATCH; i++) {
        const m = traffic.next().raw;
        const c = pickCapcode();
        const text = displayText(m);
        cols.type.push(detectMessageType(m));
        cols.raw.push(m);
        cols.message.push(text);
        cols.capcode.push(c.capcode);
        cols.capcodeId.push(c.id);
        cols.agencyId.push(c.agencyId);
        cols.hash.push(textHash(text));
      }
      return Object.values(cols);
    });
  }

  // (b) the same batches as multi-row inserts, prepared before the clock starts.
  const raw =
    ONLY === "pagermon" ? null : await rawInserts(scratch.url, rawBatches(Math.min(batches * 3, 3_000)));
  if (raw) log(`raw inserts: ${raw.rate.toFixed(0)} messages/s`);

  // (c) PagerMon's reader: one form-encoded message per request, each waiting for the previous reply.
  const pmBefore = await countAlerts();
  const pmLatencies: number[] = [];
  let pmIgnored = 0;
  const p0 = performance.now();
  const pmDeadline = p0 + PAGERMON_SECONDS * 1000;
  const poster = async () => {
    while (ONLY !== "batches" && performance.now() < pmDeadline && pmLatencies.length < MAX_PAGERMON) {
      await postOne();
    }
  };
  const postOne = async () => {
    const started = performance.now();
    const res = await request(
      `${server.url}/api/messages`,
      { "content-type": "application/x-www-form-urlencoded", apikey: KEY },
      new URLSearchParams({
        address: capcode(),
        message: traffic.next().raw,
        datetime: String(Math.floor(Date.now() / 1000)),
        source: "pagermon-reader",
      }).toString(),
    );
    const text = res.text;
    if (res.status !== 200) throw new Error(`pagermon: ${res.status} ${text}`);
    if (text === "Ignoring duplicate") pmIgnored += 1;
    pmLatencies.push(performance.now() - started);
  };
  await Promise.all(Array.from({ length: POSTERS }, poster));
  const pmElapsed = (performance.now() - p0) / 1000;
  const pmStored = (await countAlerts()) - pmBefore;
  const pmRate = pmLatencies.length / pmElapsed;
  if (ONLY !== "batches") log(`pagermon: ${pmRate.toFixed(0)} messages/s`);

  const env = await environment(scratch.url);
  await client.end();
  await stopChild(server.child);
  await scratch.drop();

  const out = [
    "```",
    env,
    "```",
    "",
    table(
      [
        "mode",
        "duration s",
        "messages",
        "stored alerts",
        "messages/s",
        "p50 ms",
        "p95 ms",
        "max ms",
        "target",
        "met",
      ],
      [
        ONLY !== "pagermon" && [
          `POST /api/ingest/messages, batches of ${BATCH}, ${SENDERS} concurrent senders`,
          elapsed.toFixed(1),
          String(created + duplicates),
          String(stored),
          batchRate.toFixed(0),
          ms(percentile(latencies, 50)),
          ms(percentile(latencies, 95)),
          ms(Math.max(...latencies)),
          ">= 2,000/s",
          batchRate >= 2000 ? "yes" : "**no**",
        ],
        !!raw && [
          `raw multi-row INSERT of ${BATCH} alerts + recipients, ${SENDERS} connections (reference)`,
          raw.elapsed.toFixed(1),
          String(raw.messages),
          String(raw.messages),
          raw.rate.toFixed(0),
          ms(percentile(raw.latencies, 50)),
          ms(percentile(raw.latencies, 95)),
          ms(Math.max(...raw.latencies)),
          "",
          "",
        ],
        !!raw && [
          "batches through the API as a share of the raw inserts",
          "",
          "",
          "",
          `${((100 * batchRate) / raw.rate).toFixed(0)} %`,
          "",
          "",
          "",
          ">= 75 %",
          batchRate >= 0.75 * raw.rate ? "yes" : "**no**",
        ],
        ONLY !== "batches" && [
          `POST /api/messages (PagerMon reader), 1 per request, ${POSTERS === 1 ? "sequential" : `${POSTERS} concurrent posters`}`,
          pmElapsed.toFixed(1),
          String(pmLatencies.length),
          String(pmStored),
          pmRate.toFixed(0),
          ms(percentile(pmLatencies, 50)),
          ms(percentile(pmLatencies, 95)),
          ms(Math.max(...pmLatencies)),
          ">= 600/s",
          pmRate >= 600 ? "yes" : "**no**",
        ],
      ].filter((row) => row !== false),
    ),
    "",
    `Duplicates reported: ${duplicates} (batches), ${pmIgnored} (PagerMon); every message text is distinct, so both should be 0.`,
  ];
  if (profileDir) out.push("", `CPU profiles of the server: ${profileDir}`);
  console.log(out.join("\n"));
}

/**
 * Writes `prepared` batches straight into alerts and alert_recipients, one statement per batch, from
 * SENDERS connections for SECONDS (or until the batches run out).
 */
async function rawInserts(url: string, prepared: unknown[][]) {
  const pool = new pg.Pool({ connectionString: url, max: SENDERS });
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const deadline = t0 + SECONDS * 1000;
  try {
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (performance.now() < deadline && next < prepared.length) {
          const columns = prepared[next++]!;
          const started = performance.now();
          await pool.query(
            `WITH new AS (
               INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, dedupe_hash,
                                   source, sent_at)
               SELECT type, raw, msg, capcode, capcode_id, agency_id, hash, 'bench-raw', now()
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[])
                   AS t(type, raw, msg, capcode, capcode_id, agency_id, hash)
               RETURNING id, capcode_id, agency_id)
             INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
             SELECT id, capcode_id, agency_id FROM new`,
            columns,
          );
          latencies.push(performance.now() - started);
        }
      }),
    );
  } finally {
    await pool.end();
  }
  const elapsed = (performance.now() - t0) / 1000;
  const messages = latencies.length * BATCH;
  return { elapsed, messages, rate: messages / elapsed, latencies };
}

runMain(main);
