/**
 * Turnout and PagerMon side by side (issue 16): the same messages (the search benchmark's generator,
 * seed and order), both servers as child processes on this machine in one run, measured over HTTP in
 * interleaved rounds: search (each class of bench/server/lib/search-classes.ts), idle and peak memory,
 * and ingest (one message per POST, sequential and from concurrent posters).
 *
 *   npx tsx bench/pagermon/compare.ts <pagermon-server-dir> [data-dir]
 *
 *   BENCH_DB=bench1m            an existing Turnout database loaded by bench/server/load-search.ts (default)
 *   BENCH_ALERTS=20000          instead: load a scratch Turnout database of this size (dropped after)
 *   BENCH_ROUNDS=3              search rounds (after one untimed warm-up pass)
 *   BENCH_SAMPLES=10            requests per class and side in each round (interleaved)
 *   BENCH_REPEATS=3             times a round that disagrees with the others by more than 2x is measured again
 *   BENCH_INGEST_SECONDS=10     seconds of ingest per server and mode (0: no ingest)
 *   BENCH_POSTERS=10            concurrent posters in the second ingest mode
 *   BENCH_SETTLE_S=45           seconds both servers idle before their RSS is read (then 10 samples, 1 s apart)
 *   BENCH_NEIGHBOUR=1           a CPU-bound process spins on one core beside both servers during the search rounds
 *
 * <pagermon-server-dir> is the server/ directory of an installed PagerMon (nothing of PagerMon is in this
 * repository; bench/README.md says how to install it). Its SQLite database is written directly, through
 * its own sqlite3 module, with the messages of the Turnout database, and kept in [data-dir] (default
 * pagermon-bench-data beside the PagerMon directory) for the next run with the same messages.
 * Ingest goes into copies of both databases (dropped after), so the kept ones never change.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ALERT_PAGE_SIZE } from "@turnout/domain";
import pg from "pg";
import { openDatabase } from "../../server/src/db/client.js";
import { type BenchAgency, createAgencies, readAgencies } from "../server/lib/agencies.js";
import {
  baseDatabaseUrl,
  environment,
  log,
  ms,
  onExit,
  percentile,
  procKb,
  runMain,
  scratchDatabase,
  sleep,
  startCpuNeighbour,
  startServer,
  stopChild,
  table,
} from "../server/lib/common.js";
import { PagerTraffic } from "../server/lib/messages.js";
import { SEARCH_CLASSES, type SearchClass } from "../server/lib/search-classes.js";
import { loadAlerts } from "../server/lib/search-load.js";
import { createBenchViewers } from "../server/lib/viewers.js";
import {
  countMessages,
  findPagerMon,
  loadPagerMon,
  type PagerMon,
  type PagerMonCapcode,
  type PagerMonMessage,
  startPagerMon,
} from "./pagermon.js";
import { type IngestSide, ingest, messageStream, post, request, SLICE_S } from "./posting.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
/** A round's median more than this many times off the median of the rounds' medians is an outlier. */
const DISAGREEMENT = 2;
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
const POSTERS = Number(process.env.BENCH_POSTERS ?? 10);
/**
 * Turnout's RSS stays near its start-up peak (~190 MB) for ~25 s after start, then V8 shrinks the heap
 * (~90 MB): idle is read after this long.
 */
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 45);
/** Search rounds with another CPU-bound process beside the servers (issue 32's never-together target). */
const NEIGHBOUR = process.env.BENCH_NEIGHBOUR === "1";
const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0016";
const INGEST_KEY = "bench-ingest-key-0123456789";
const PAGERMON_KEY = "bench-pagermon-key-0123456789";
/** Rows read from PostgreSQL (and written to SQLite in one transaction) at a time. */
const COPY_PAGE = 25_000;

const mb = (kb: number) => (kb / 1024).toFixed(1);

/** VmRSS and VmHWM (peak) of a process, in kB, from /proc. */
function memoryKb(pid: number): { rss: number; hwm: number } {
  return { rss: procKb(pid, "VmRSS"), hwm: procKb(pid, "VmHWM") };
}

/** The Turnout database the messages come from: BENCH_DB as loaded by load-search.ts, or a scratch load. */
async function turnoutDatabase(): Promise<{ url: string; name: string; label: string }> {
  const scratchSize = process.env.BENCH_ALERTS;
  if (scratchSize && process.env.BENCH_DB)
    throw new Error("set BENCH_DB (an existing database) or BENCH_ALERTS (a scratch load), not both");
  if (scratchSize) {
    const total = Number(scratchSize);
    if (!Number.isInteger(total) || total < 1_000)
      throw new Error("BENCH_ALERTS must be a whole number of at least 1,000");
    const scratch = await scratchDatabase();
    const name = new URL(scratch.url).pathname.slice(1);
    const migrated = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
    await migrated.close();
    const pool = new pg.Pool({ connectionString: scratch.url, max: 3 });
    try {
      const client = await pool.connect();
      const agencies = await createAgencies(client);
      client.release();
      const t0 = performance.now();
      await loadAlerts(pool, agencies, new PagerTraffic(1), total, log);
      log(`Turnout: scratch database ${name} loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    } finally {
      await pool.end();
    }
    return { url: scratch.url, name, label: `scratch database loaded for this run (BENCH_ALERTS=${total})` };
  }
  const name = process.env.BENCH_DB ?? "bench1m";
  if (!/^bench\w*$/.test(name))
    throw new Error("BENCH_DB must name a database load-search.ts made (bench...)");
  const admin = new pg.Client({ connectionString: baseDatabaseUrl() });
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!found.rowCount)
      throw new Error(
        `database ${name} does not exist: load it with BENCH_DB=${name} BENCH_ALERTS=1000000 ` +
          "npx tsx bench/server/load-search.ts, or set BENCH_ALERTS=20000 (and no BENCH_DB) for a scratch run",
      );
  } finally {
    await admin.end();
  }
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), name, label: `database ${name} (load-search.ts)` };
}

/** What identifies the messages of a Turnout database: a PagerMon database made from them is reused while it matches. */
type Fingerprint = {
  alerts: number;
  lastId: number;
  firstSent: string;
  lastSent: string;
  /** md5 of the first and of the last 1,000 alerts' capcode, raw text and time. */
  head: string;
  tail: string;
  capcodes: number;
};

/** One alert as the fingerprint digests it: what PagerMon is given of it. */
const LINE = "capcode || ' ' || raw_message || ' ' || floor(extract(epoch FROM sent_at))";

async function fingerprint(client: pg.Client, capcodes: number): Promise<Fingerprint> {
  const { rows } = await client.query<{
    alerts: number;
    last_id: string;
    first_sent: Date;
    last_sent: Date;
    head: string;
    tail: string;
  }>(
    // The first and last 1,000 by the primary key (no pass over the whole table beyond the count).
    `SELECT (SELECT count(*)::int FROM alerts) AS alerts, (SELECT max(id) FROM alerts)::text AS last_id,
            (SELECT min(sent_at) FROM alerts) AS first_sent, (SELECT max(sent_at) FROM alerts) AS last_sent,
            (SELECT md5(string_agg(${LINE}, E'\\n' ORDER BY id))
               FROM (SELECT * FROM alerts ORDER BY id LIMIT 1000) h) AS head,
            (SELECT md5(string_agg(${LINE}, E'\\n' ORDER BY id))
               FROM (SELECT * FROM alerts ORDER BY id DESC LIMIT 1000) t) AS tail`,
  );
  const r = rows[0]!;
  return {
    alerts: r.alerts,
    lastId: Number(r.last_id),
    firstSent: r.first_sent.toISOString(),
    lastSent: r.last_sent.toISOString(),
    head: r.head,
    tail: r.tail,
    capcodes,
  };
}

/**
 * The bench capcodes as PagerMon aliases: alias "<agency code> <capcode>", agency "<agency code>"
 * (PagerMon's FTS3 index holds the alias and agency beside the text, so no name of ours may contain a
 * searched word, e.g. "Fire Rescue Victoria" would match FIRE).
 */
function pagerMonCapcodes(agencies: BenchAgency[]): PagerMonCapcode[] {
  let id = 0;
  return agencies.flatMap((a) =>
    a.capcodes.map((c) => ({
      id: ++id,
      address: c.capcode,
      alias: `${a.code} ${c.capcode}`,
      agency: a.code,
    })),
  );
}

/** Turnout's alerts in id order, as PagerMon messages: the primary capcode, the raw text, the pager's time. */
async function* turnoutMessages(
  url: string,
  aliasIds: Map<string, number>,
): AsyncGenerator<PagerMonMessage[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let after = 0;
    for (;;) {
      const { rows } = await client.query<{ id: string; capcode: string; raw_message: string; sent: string }>(
        `SELECT id, capcode, raw_message, floor(extract(epoch FROM sent_at))::bigint AS sent
           FROM alerts WHERE id > $1 ORDER BY id LIMIT $2`,
        [after, COPY_PAGE],
      );
      if (rows.length === 0) return;
      after = Number(rows.at(-1)!.id);
      yield rows.map((r) => ({
        id: Number(r.id),
        address: r.capcode,
        message: r.raw_message,
        timestamp: Number(r.sent),
        aliasId: aliasIds.get(r.capcode) ?? null,
      }));
    }
  } finally {
    await client.end();
  }
}

type PagerMonData = { file: string; messages: number; loadSeconds: number; reused: boolean };

/** The PagerMon database holding the Turnout database's messages: the kept one if it matches, else loaded now. */
async function pagerMonDatabase(
  pm: PagerMon,
  dataDir: string,
  turnout: { url: string },
  agencies: BenchAgency[],
): Promise<PagerMonData> {
  const capcodes = pagerMonCapcodes(agencies);
  const client = new pg.Client({ connectionString: turnout.url });
  await client.connect();
  let wanted: Fingerprint;
  try {
    wanted = await fingerprint(client, capcodes.length);
  } finally {
    await client.end();
  }
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `pagermon-${wanted.alerts}.db`);
  const metaFile = `${file}.json`;
  if (existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as {
      fingerprint: Fingerprint;
      loadSeconds: number;
    };
    if (JSON.stringify(meta.fingerprint) === JSON.stringify(wanted)) {
      log(`PagerMon: reusing ${file} (same ${wanted.alerts.toLocaleString("en-AU")} messages)`);
      return { file, messages: wanted.alerts, loadSeconds: meta.loadSeconds, reused: true };
    }
    log(`PagerMon: ${file} holds other messages; loading it again`);
  }
  for (const f of [file, metaFile, `${file}-journal`]) rmSync(f, { force: true });
  // PagerMon makes its own schema (knex migrations: tables, FTS3 table, triggers) on an empty file.
  log("PagerMon: migrating an empty database");
  const migrating = await startPagerMon(pm, file, PAGERMON_KEY, "migrated");
  await migrating.stop();
  const t0 = performance.now();
  const written = await loadPagerMon(
    pm,
    file,
    capcodes,
    turnoutMessages(turnout.url, new Map(capcodes.map((c) => [c.address, c.id]))),
    log,
  );
  const loadSeconds = (performance.now() - t0) / 1000;
  if (written !== wanted.alerts)
    throw new Error(`PagerMon load wrote ${written} messages, expected ${wanted.alerts}`);
  writeFileSync(metaFile, `${JSON.stringify({ fingerprint: wanted, loadSeconds }, null, 2)}\n`);
  log(`PagerMon: ${written.toLocaleString("en-AU")} messages loaded in ${loadSeconds.toFixed(1)} s`);
  return { file, messages: written, loadSeconds, reused: false };
}

/** A copy of a Turnout database (for ingest), dropped on exit. Nobody may be connected to the source. */
async function copyTurnoutDatabase(source: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `turnout_test_${process.pid}_pmcopy`;
  const admin = new pg.Client({ connectionString: baseDatabaseUrl() });
  await admin.connect();
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const c = new pg.Client({ connectionString: baseDatabaseUrl() });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  try {
    const version = Number((await admin.query<{ v: string }>("SHOW server_version_num")).rows[0]!.v);
    onExit(drop);
    // FILE_COPY (PostgreSQL 15+) copies the files instead of writing every block through the WAL.
    await admin
      .query(`CREATE DATABASE ${name} TEMPLATE ${source}${version >= 150_000 ? " STRATEGY FILE_COPY" : ""}`)
      .catch((err: { code?: string; message?: string }) => {
        if (err.code !== "55006") throw err;
        throw new Error(
          `${err.message}: ingest copies ${source}, which needs nobody else connected to it ` +
            "(or skip ingest with BENCH_INGEST_SECONDS=0)",
        );
      });
  } finally {
    await admin.end();
  }
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), drop };
}

/** Turnout's search as the web app asks for it: the first page, 50 alerts. */
function turnoutSearch(baseUrl: string, token: string, q: SearchClass, adminContext: boolean) {
  const params = new URLSearchParams({ limit: String(ALERT_PAGE_SIZE) });
  if (q.search) params.set("search", q.search);
  if (adminContext) params.set("admin_context", "true");
  return async () => {
    const a = await request(`${baseUrl}/api/alerts/search?${params}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (a.status !== 200) throw new Error(`Turnout search ${q.name}: ${a.status} ${a.text.slice(0, 300)}`);
    const body = JSON.parse(a.text) as { data: unknown[] };
    return { ms: a.ms, bytes: a.bytes, items: body.data.length, total: null as number | null };
  };
}

/**
 * PagerMon's: the message list (GET /api/messages) for the empty search, else GET /api/messageSearch?q=,
 * with its default page (20). The session cookie it sets is kept in `jar` and sent back, as a browser would.
 */
function pagerMonSearch(baseUrl: string, q: SearchClass, jar: { cookie: string | null }) {
  const url = q.search
    ? `${baseUrl}/api/messageSearch?${new URLSearchParams({ q: q.search })}`
    : `${baseUrl}/api/messages`;
  return async () => {
    const a = await request(url, {
      headers: { apikey: PAGERMON_KEY, ...(jar.cookie ? { cookie: jar.cookie } : {}) },
    });
    if (a.status !== 200) throw new Error(`PagerMon search ${q.name}: ${a.status} ${a.text.slice(0, 300)}`);
    if (!jar.cookie && a.setCookie[0]) jar.cookie = a.setCookie[0].split(";")[0]!;
    const body = JSON.parse(a.text) as { init: { msgCount?: number }; messages: unknown[] };
    return { ms: a.ms, bytes: a.bytes, items: body.messages.length, total: body.init.msgCount ?? 0 };
  };
}

type Measured = { ms: number; bytes: number; items: number; total: number | null };
type Side = "turnout" | "pagermon" | "small";

/** How many alerts Turnout's search matches (every term a substring of the text, as ILIKE), optionally within agencies. */
async function turnoutMatches(url: string, q: SearchClass, agencyIds: number[] | null): Promise<number> {
  const terms = q.search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const where = [
    ...terms.map((_, i) => `message ILIKE $${i + 1}`),
    ...(agencyIds ? [`agency_ids && $${terms.length + 1}::int[]`] : []),
  ];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM alerts${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`,
      [...terms, ...(agencyIds ? [agencyIds] : [])],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function main() {
  const loadAtStart = os.loadavg();
  const pmArg = process.argv[2];
  if (!pmArg)
    throw new Error(
      "usage: npx tsx bench/pagermon/compare.ts <pagermon-server-dir> [data-dir] (see bench/README.md)",
    );
  const pm = findPagerMon(pmArg);
  const dataDir = path.resolve(process.argv[3] ?? path.join(path.dirname(pm.dir), "pagermon-bench-data"));
  log(`PagerMon ${pm.version} at ${pm.dir} (${pm.sqliteVersion}); data in ${dataDir}`);

  const turnout = await turnoutDatabase();
  const reader = new pg.Client({ connectionString: turnout.url });
  await reader.connect();
  let agencies: BenchAgency[];
  let turnoutSize: string;
  let seeded: boolean;
  try {
    agencies = await readAgencies(reader);
    seeded = (await reader.query<{ s: boolean }>("SELECT EXISTS (SELECT 1 FROM postcodes) AS s")).rows[0]!.s;
    turnoutSize = (
      await reader.query<{ s: string }>("SELECT pg_size_pretty(pg_database_size(current_database())) AS s")
    ).rows[0]!.s;
  } finally {
    await reader.end();
  }
  const pmData = await pagerMonDatabase(pm, dataDir, turnout, agencies);
  const pmSize = `${(statSync(pmData.file).size / 1024 ** 2).toFixed(0)} MB`;

  // Search: both servers on the kept databases.
  const viewers = await createBenchViewers(turnout.url, JWT_SECRET, { label: "PagerMon", phoneSlot: 9000 });
  if (!seeded) {
    // A first start seeds ~18,000 postcodes (a 25 MB JSON read once); a running installation restarts on
    // seeded data, so that is what is measured (as in idle-memory.ts).
    log("Turnout: first start on this database (seeds the postcodes), then a restart");
    const seeding = await startServer(turnout.url, { JWT_SECRET });
    await stopChild(seeding.child);
  }
  const t = await startServer(turnout.url, { JWT_SECRET });
  const p = await startPagerMon(pm, pmData.file, PAGERMON_KEY);
  const pids = { turnout: t.child.pid!, pagermon: p.child.pid! };
  log(
    `Turnout at ${t.url} (pid ${pids.turnout}), PagerMon at ${p.url} (pid ${pids.pagermon}); settling ${SETTLE_S} s`,
  );
  await sleep(SETTLE_S * 1000);
  const idle = { turnout: [] as number[], pagermon: [] as number[] };
  for (let i = 0; i < 10; i++) {
    idle.turnout.push(memoryKb(pids.turnout).rss);
    idle.pagermon.push(memoryKb(pids.pagermon).rss);
    await sleep(1000);
  }

  const classes = SEARCH_CLASSES;
  const jar: { cookie: string | null } = { cookie: null };
  const calls = classes.map((q) => ({
    q,
    turnout: turnoutSearch(t.url, viewers.admin, q, true),
    pagermon: pagerMonSearch(p.url, q, jar),
    small: turnoutSearch(t.url, viewers.small, q, false),
  }));
  const first = classes.map(() => ({}) as Partial<Record<Side, Measured>>);
  const firePeak = { turnout: 0, pagermon: 0 };
  const roundLoads: number[] = [];
  /** One class's round: SAMPLES requests on each side, the order turning at every request. */
  const measureRound = async (i: number, warmUp: boolean): Promise<Record<Side, number[]>> => {
    const call = calls[i]!;
    const out: Record<Side, number[]> = { turnout: [], pagermon: [], small: [] };
    const sampling =
      call.q.search === "FIRE"
        ? setInterval(() => {
            firePeak.turnout = Math.max(firePeak.turnout, memoryKb(pids.turnout).rss);
            firePeak.pagermon = Math.max(firePeak.pagermon, memoryKb(pids.pagermon).rss);
          }, 10)
        : null;
    try {
      for (let s = 0; s < (warmUp ? 1 : SAMPLES); s++) {
        // Turnout (admin) and PagerMon swap places every request; the small agency goes first or last.
        const order: Side[] =
          s % 2 === 0 ? ["turnout", "pagermon", "small"] : ["small", "pagermon", "turnout"];
        for (const side of order) {
          const m = await call[side]();
          if (warmUp) first[i]![side] = m;
          else out[side].push(m.ms);
        }
      }
    } finally {
      if (sampling) clearInterval(sampling);
    }
    return out;
  };
  log(
    `search: 1 warm-up pass, then ${ROUNDS} rounds of ${classes.length} classes × ${SAMPLES} requests per side`,
  );
  for (const i of classes.keys()) await measureRound(i, true);
  const stopNeighbour = NEIGHBOUR ? startCpuNeighbour() : null;
  if (stopNeighbour) log("a CPU-bound neighbour spins on one core during the search rounds");
  /** rounds[class][round]: that round's samples per side. */
  const rounds: Record<Side, number[]>[][] = classes.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const i of classes.keys()) rounds[i]!.push(await measureRound(i, false));
    roundLoads.push(os.loadavg()[0]!);
    log(`round ${round + 1}/${ROUNDS} done (load average ${os.loadavg()[0]!.toFixed(2)})`);
  }
  // Outliers: a round whose median (on any side) is more than DISAGREEMENT times off the median of that
  // side's round medians is measured again (every side, interleaved as before) and replaced, up to REPEATS
  // times per class; a class still disagreeing after that is flagged in the table.
  const outlierRound = (i: number): number | null => {
    for (const side of ["turnout", "pagermon", "small"] as const) {
      const medians = rounds[i]!.map((r) => percentile(r[side], 50));
      const middle = percentile(medians, 50);
      for (const [k, m] of medians.entries())
        if (m > middle * DISAGREEMENT || m < middle / DISAGREEMENT) return k;
    }
    return null;
  };
  const repeated: { name: string; side: string; replaced: string }[] = [];
  const disagreeing = new Set<number>();
  for (const i of classes.keys()) {
    for (let attempt = 0; ; attempt++) {
      const k = outlierRound(i);
      if (k === null) break;
      if (attempt >= REPEATS) {
        disagreeing.add(i);
        break;
      }
      const was = rounds[i]![k]!;
      rounds[i]![k] = await measureRound(i, false);
      const medians = (r: Record<Side, number[]>) =>
        (["turnout", "pagermon", "small"] as const).map((side) => ms(percentile(r[side], 50))).join(" / ");
      repeated.push({
        name: classes[i]!.name,
        side: `round ${k + 1}`,
        replaced: `${medians(was)} → ${medians(rounds[i]![k]!)} (load ${os.loadavg()[0]!.toFixed(2)})`,
      });
      log(
        `${classes[i]!.name}: round ${k + 1} disagreed with the others by more than ${DISAGREEMENT}×; measured again`,
      );
    }
  }
  const times = rounds.map((list) => ({
    turnout: list.flatMap((r) => r.turnout),
    pagermon: list.flatMap((r) => r.pagermon),
    small: list.flatMap((r) => r.small),
  }));
  const roundMedians = (i: number, side: Side) =>
    rounds[i]!.map((r) => ms(percentile(r[side], 50))).join(", ");
  await stopNeighbour?.();
  const afterSearch = { turnout: memoryKb(pids.turnout), pagermon: memoryKb(pids.pagermon) };

  await stopChild(t.child);
  await p.stop();
  await viewers.remove();
  log("counting Turnout's matches");
  const matches: { admin: number; small: number }[] = [];
  for (const q of classes)
    matches.push({
      admin: await turnoutMatches(turnout.url, q, null),
      small: await turnoutMatches(turnout.url, q, viewers.smallAgencyIds),
    });

  // Printed before ingest starts, so a failure there leaves these figures on the screen.
  const env = await environment(baseDatabaseUrl());
  const out: string[] = [];
  out.push(
    "```",
    env,
    `load average at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    `PagerMon ${pm.version} (${pm.dir}), ${pm.sqliteVersion}`,
    "```",
    "",
  );
  out.push(
    `Data: ${pmData.messages.toLocaleString("en-AU")} messages, the same in both: Turnout's ${turnout.label}, ` +
      `${turnoutSize}; PagerMon's SQLite database ${pmSize} (${pmData.file}), ` +
      (pmData.reused
        ? `reused (its load took ${pmData.loadSeconds.toFixed(1)} s when it was made). `
        : `loaded for this run in ${pmData.loadSeconds.toFixed(1)} s. `) +
      "One PagerMon message per Turnout alert: its primary capcode (aliased in PagerMon's capcodes table), the raw " +
      "text Turnout received, the pager time in unix seconds.",
    "",
  );
  out.push(
    "Memory (RSS from /proc/<pid>/status, MB). Turnout: its Node process only, PostgreSQL's processes apart; " +
      "PagerMon: its one Node process, SQLite (in-process) included.",
    "",
    table(
      ["server", "idle (median)", "peak during FIRE", "after the search rounds", "peak since start (VmHWM)"],
      (["turnout", "pagermon"] as const).map((side) => [
        side === "turnout" ? "Turnout" : "PagerMon",
        mb(percentile(idle[side], 50)),
        mb(firePeak[side]),
        mb(afterSearch[side].rss),
        mb(afterSearch[side].hwm),
      ]),
    ),
    "",
  );
  out.push(
    `Search over HTTP, ${ROUNDS} rounds after a warm-up pass, each round ${SAMPLES} requests of each class on each ` +
      "side (the order turning at every request), p50 and p95 over every round's requests; a round whose median is more " +
      `than ${DISAGREEMENT}× off the other rounds' is measured again (up to ${REPEATS} times); the whole request timed ` +
      "(keep-alive connection, no compression asked for). Turnout: GET " +
      `/api/alerts/search, first page of ${ALERT_PAGE_SIZE}, as an admin in admin context; "small agency": a user of ` +
      "VICSES Mid West (no PagerMon equivalent: PagerMon has no agencies, its search sees everything). PagerMon: GET " +
      "/api/messageSearch?q= (GET /api/messages for the list), its default page of 20, with an API key. " +
      "Matches: Turnout every term a substring (ILIKE), PagerMon an FTS3 MATCH of whole words (its msgCount)." +
      (NEIGHBOUR ? " **A CPU-bound process spun on one core beside both servers during the rounds.**" : ""),
    "",
    table(
      [
        "query",
        "search",
        "matches T / P",
        "Turnout p50 / p95 ms",
        "PagerMon p50 / p95 ms",
        "PagerMon ÷ Turnout p50 / p95",
        "page T / P (KB)",
        "small agency p50 / p95 ms",
        "small matches",
      ],
      classes.map((q, i) => {
        const tt = times[i]!.turnout;
        const pt = times[i]!.pagermon;
        const st = times[i]!.small;
        const f = first[i]!;
        const ratio = (a: number[], b: number[], k: number) =>
          (percentile(a, k) / percentile(b, k)).toFixed(1);
        return [
          q.name,
          q.search ? `\`${q.search}\`` : "",
          `${matches[i]!.admin} / ${f.pagermon?.total ?? "-"}`,
          `${ms(percentile(tt, 50))} / ${ms(percentile(tt, 95))}`,
          `${ms(percentile(pt, 50))} / ${ms(percentile(pt, 95))}`,
          `${ratio(pt, tt, 50)}× / ${ratio(pt, tt, 95)}×`,
          `${f.turnout?.items} (${((f.turnout?.bytes ?? 0) / 1000).toFixed(1)}) / ${f.pagermon?.items} (${((f.pagermon?.bytes ?? 0) / 1000).toFixed(1)})`,
          `${ms(percentile(st, 50))} / ${ms(percentile(st, 95))}`,
          String(matches[i]!.small),
        ];
      }),
    ),
    "",
    `Load average (1 min) after each round: ${roundLoads.map((l) => l.toFixed(2)).join(", ")}`,
    "",
    "Each round's median (ms), Turnout admin / PagerMon / Turnout small agency:",
    "",
    table(
      ["query", "Turnout (admin)", "PagerMon", "small agency", "rounds agree (within 2×)"],
      classes.map((q, i) => [
        q.name,
        roundMedians(i, "turnout"),
        roundMedians(i, "pagermon"),
        roundMedians(i, "small"),
        disagreeing.has(i) ? `**no, after ${REPEATS} repeats**` : "yes",
      ]),
    ),
    "",
    repeated.length
      ? `Rounds measured again (medians Turnout / PagerMon / small, before → after):\n\n${table(
          ["query", "round", "medians"],
          repeated.map((r) => [r.name, r.side, r.replaced]),
        )}`
      : "No round disagreed with the others by more than 2×.",
  );
  console.log(out.join("\n"));

  // Ingest: into copies of both databases, so the kept ones stay as loaded.
  const ingestRows: (string | number)[][] = [];
  let ingestNote = "";
  if (INGEST_SECONDS > 0) {
    log("ingest: copying both databases");
    const t0 = performance.now();
    const copy = await copyTurnoutDatabase(turnout.name);
    const copySeconds = (performance.now() - t0) / 1000;
    const pmCopy = path.join(dataDir, `ingest-${process.pid}.db`);
    onExit(() => rmSync(pmCopy, { force: true }));
    copyFileSync(pmData.file, pmCopy);
    const ti = await startServer(copy.url, { INGEST_API_KEY: INGEST_KEY });
    const pi = await startPagerMon(pm, pmCopy, PAGERMON_KEY);
    const capcodes = agencies.flatMap((a) => a.capcodes.map((c) => c.capcode));
    const counter = new pg.Client({ connectionString: copy.url });
    await counter.connect();
    const stored = async () => ({
      turnout: (await counter.query<{ n: number }>("SELECT count(*)::int AS n FROM alerts")).rows[0]!.n,
      pagermon: await countMessages(pm, pmCopy),
    });
    const modes: { label: string; posters: number }[] = [
      { label: "1 per request, sequential", posters: 1 },
      { label: `1 per request, ${POSTERS} concurrent posters`, posters: POSTERS },
    ];
    try {
      const ingestSides: IngestSide[] = [
        { name: "Turnout", url: ti.url, key: INGEST_KEY, next: messageStream(capcodes) },
        { name: "PagerMon", url: pi.url, key: PAGERMON_KEY, next: messageStream(capcodes) },
      ];
      for (const side of ingestSides) for (let i = 0; i < 20; i++) await post(side); // warm-up
      for (const mode of modes) {
        const before = await stored();
        log(`ingest: ${mode.label}, ${INGEST_SECONDS} s each`);
        const results = await ingest(ingestSides, mode.posters, INGEST_SECONDS);
        const after = await stored();
        const load = os.loadavg()[0]!.toFixed(2);
        for (const [i, side] of ingestSides.entries()) {
          const r = results[i]!;
          const key = i === 0 ? "turnout" : "pagermon";
          ingestRows.push([
            mode.label,
            side.name,
            r.seconds.toFixed(1),
            r.latencies.length,
            after[key] - before[key],
            r.duplicates,
            (r.latencies.length / r.seconds).toFixed(0),
            ms(percentile(r.latencies, 50)),
            ms(percentile(r.latencies, 95)),
            ms(Math.max(...r.latencies)),
            load,
          ]);
        }
      }
    } finally {
      await counter.end();
      await stopChild(ti.child);
      await pi.stop();
      await copy.drop();
      rmSync(pmCopy, { force: true });
    }
    ingestNote =
      `Ingest went into copies of both databases (Turnout's copied with CREATE DATABASE … TEMPLATE in ` +
      `${copySeconds.toFixed(1)} s; PagerMon's file copied), fresh servers on them, 20 untimed posts each first; ` +
      `dropped after. The servers take turns in ${SLICE_S} s slices.`;
  }

  if (ingestRows.length) {
    console.log(
      [
        "",
        "Ingest: POST /api/messages on both (PagerMon's reader request: a form, the key in an `apikey` header), " +
          "one message per request, each poster waiting for the reply; fresh messages from the ingest benchmark's " +
          `generator (seed 42), the same sequence to each server. ${ingestNote}`,
        "",
        table(
          [
            "mode",
            "server",
            "seconds",
            "requests",
            "stored",
            "duplicates",
            "messages/s",
            "p50 ms",
            "p95 ms",
            "max ms",
            "load average after",
          ],
          ingestRows,
        ),
        "",
        `load average at the end (1/5/15 min): ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
      ].join("\n"),
    );
  }
}

runMain(main);
