/**
 * Memory of the embedded default (issue 32: PGlite under 250 MB idle, under 400 MB answering FIRE): the
 * compiled server as `npm start` runs it with no DATABASE_URL, on a fresh DATA_DIR that the first start
 * seeds (postcodes) and BENCH_ALERTS alerts loaded through the ingest API (or on a copy of a database
 * loaded before: BENCH_PGLITE_DIR); then restarted on that data, left to settle, its RSS sampled idle,
 * and then while it answers an admin's search for `FIRE` (the first page and the next ones by their
 * cursors, one request after another, for BENCH_FIRE_S seconds), sampled every 100 ms.
 * What the resident memory is made of comes from /proc/<pid>/smaps_rollup
 * (anonymous: the JavaScript heaps and PGlite's WASM memory; file-backed: the node binary and libraries)
 * and from /proc/<pid>/smaps (the largest anonymous mappings: a WASM memory is one large mapping).
 *
 *   npx tsx bench/server/pglite-memory.ts          BENCH_ALERTS=20000 BENCH_SETTLE_S=45 BENCH_ROUNDS=1 BENCH_FIRE_S=30
 *   BENCH_NODE_ARGS="|--wasm-lazy-compilation" BENCH_ROUNDS=2 npx tsx bench/server/pglite-memory.ts
 *   BENCH_PGLITE_DIR=data/bench-pglite-1m npx tsx bench/server/pglite-memory.ts
 *     (a directory pglite-search.ts loaded and kept, e.g. 1,000,000 alerts: copied, never changed)
 */

import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../server/src/db/client.js";
import { rowsOf } from "../../server/src/db/rows.js";
import { signSessionToken } from "../../server/src/shared/tokens.js";
import { machineLine } from "../support/machine.js";
import {
  envOfWords,
  isEnvWord,
  log,
  ms,
  onExit,
  percentile,
  procKb,
  repoRoot,
  runMain,
  sleep,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";
import { PagerTraffic, rng } from "./lib/messages.js";

const ALERTS = Number(process.env.BENCH_ALERTS ?? 20_000);
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 45);
const KEY = "bench-ingest-key-0123456789";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const FIRE_S = Number(process.env.BENCH_FIRE_S ?? 30);
const KEPT_DIR = process.env.BENCH_PGLITE_DIR ? path.resolve(repoRoot, process.env.BENCH_PGLITE_DIR) : null;
const JWT_SECRET = "bench-pglite-memory-secret-0123456789abcdef";
/**
 * BENCH_NODE_ARGS="|--wasm-lazy-compilation": variants of how the server starts, separated by "|" (an
 * empty one: as `npm start` runs it), measured in turn on the same data. A word NAME=value sets an
 * environment variable (NAME= leaves out one `npm start` sets, e.g. "MALLOC_MMAP_THRESHOLD_=");
 * the other words are node arguments.
 */
const VARIANTS = (process.env.BENCH_NODE_ARGS ?? "").split("|").map((v) => v.split(" ").filter(Boolean));

type Idle = { rss: number; anon: number; mapped: number; mappings: ReturnType<typeof largestMappings> };
type Fire = { peak: number; median: number; requests: number; p50: number; p95: number };

const mb = (k: number) => (k / 1024).toFixed(1);

/** The largest mappings by resident size (anonymous ones named [anon]). */
function largestMappings(pid: number, count: number): { name: string; sizeMb: number; rssMb: number }[] {
  const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  const out: { name: string; sizeMb: number; rssMb: number }[] = [];
  let current: { name: string; sizeMb: number; rssMb: number } | null = null;
  for (const line of text.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      current = { name: header[1] || "[anon]", sizeMb: 0, rssMb: 0 };
      out.push(current);
    } else if (current) {
      const size = /^Size:\s+(\d+) kB/.exec(line);
      if (size) current.sizeMb = Number(size[1]) / 1024;
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) current.rssMb = Number(rss[1]) / 1024;
    }
  }
  return out.sort((a, b) => b.rssMb - a.rssMb).slice(0, count);
}

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${KEY}`,
          "content-length": String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * An admin with a device session in the embedded database of `dataDir` (no server on it), as a bearer
 * token, and how many alerts the database holds.
 */
async function benchAdmin(dataDir: string): Promise<{ token: string; alerts: number }> {
  const handle = await openDatabase({ databaseUrl: null, pgliteDir: path.join(dataDir, "db") });
  try {
    const [count] = rowsOf<{ n: string }>(await handle.db.execute(sql`SELECT count(*) AS n FROM alerts`));
    // A database loaded around the server (pglite-search.ts calls ingest_messages) has every message still
    // queued for keyword rules, which a running server matches as they arrive: a first start would spend
    // its minutes draining a million-row backlog, with every request waiting behind it on the one
    // connection (measured: FIRE pages 3.6-4.7 s). No rules exist here, so nothing is lost.
    await handle.db.execute(sql`DELETE FROM rule_match_queue`);
    const [user] = rowsOf<{ id: number }>(
      await handle.db.execute(sql`
        INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
        VALUES ('Bench', 'PGlite memory', '+61400000999', true, true, true)
        ON CONFLICT (phone) DO UPDATE SET is_admin = true RETURNING id`),
    );
    const expiresAt = new Date(Date.now() + 86_400_000);
    const [session] = rowsOf<{ id: string }>(
      await handle.db.execute(sql`
        INSERT INTO device_sessions (user_id, device_id, expires_at)
        VALUES (${user!.id}, 'bench-pglite-memory', ${expiresAt.toISOString()}::timestamptz) RETURNING id`),
    );
    const token = await signSessionToken(new TextEncoder().encode(JWT_SECRET), {
      userId: user!.id,
      sessionId: session!.id,
      expiresAt,
    });
    return { token, alerts: Number(count!.n) };
  } finally {
    await handle.close();
  }
}

/**
 * The admin searches for FIRE for `seconds`: the first page, then up to 9 more by their cursors, again
 * and again, one request at a time; the server's RSS sampled every 100 ms meanwhile.
 */
async function answerFire(url: string, token: string, pid: number, seconds: number): Promise<Fire> {
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(procKb(pid, "VmRSS")), 100);
  const times: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  try {
    while (Date.now() < deadline) {
      let cursor: string | null = null;
      for (let page = 0; page < 10 && Date.now() < deadline; page++) {
        const params = new URLSearchParams({ search: "FIRE", admin_context: "true", limit: "50" });
        if (cursor) params.set("cursor", cursor);
        const started = performance.now();
        const res = await fetch(`${url}/api/alerts/search?${params}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const body = (await res.json()) as { data: unknown[]; pagination: { next_cursor: string | null } };
        times.push(performance.now() - started);
        if (res.status !== 200 || body.data.length === 0) throw new Error(`FIRE: ${res.status}`);
        cursor = body.pagination.next_cursor;
        if (!cursor) break;
      }
    }
  } finally {
    clearInterval(sampler);
  }
  return {
    peak: Math.max(...samples),
    median: percentile(samples, 50),
    requests: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
  };
}

/** BENCH_ALERTS alerts through a first server's ingest API; its DATA_DIR, kept for the rounds. */
async function loadThroughIngest(): Promise<string> {
  const first = await startServer(null, { INGEST_API_KEY: KEY });
  const traffic = new PagerTraffic(32);
  const random = rng(32);
  let sequence = 0;
  log(`loading ${ALERTS} alerts through the ingest API (unmapped capcodes)`);
  for (let i = 0; i < ALERTS; i += 100) {
    const body = JSON.stringify({
      messages: Array.from({ length: 100 }, () => ({
        capcode: String(1_100_000 + Math.floor(random() * 1000)).padStart(7, "0"),
        message: traffic.next().raw,
        timestamp: Math.floor(Date.now() / 1000),
        source: "bench-pglite",
        id: `pglite-${++sequence}`,
      })),
    });
    const status = await post(`${first.url}/api/ingest/messages`, body);
    if (status !== 200) throw new Error(`ingest: ${status}`);
  }
  await stopChild(first.child);
  return first.dataDir;
}

runMain(async () => {
  const load0 = os.loadavg();
  let dataDir: string;
  if (KEPT_DIR) {
    // A scratch DATA_DIR whose database is a copy of the kept one, removed on exit.
    const scratch = mkdtempSync(path.join(os.tmpdir(), "turnout-bench-"));
    onExit(() => rmSync(scratch, { recursive: true, force: true }));
    dataDir = scratch;
    log(`copying ${KEPT_DIR} into ${dataDir}/db`);
    cpSync(KEPT_DIR, path.join(dataDir, "db"), { recursive: true });
  } else {
    dataDir = await loadThroughIngest();
  }
  const { token, alerts } = await benchAdmin(dataDir);
  // Each variant (node arguments) restarted on the same data in turn, ROUNDS times.
  const results = VARIANTS.map(() => [] as (Idle & { fire: Fire })[]);
  for (let round = 0; round < ROUNDS; round++)
    for (const [v, args] of VARIANTS.entries()) {
      const env = { INGEST_API_KEY: KEY, DATA_DIR: dataDir, JWT_SECRET, ...envOfWords(args) };
      const server = await startServer(
        null,
        env,
        args.filter((word) => !isEnvWord(word)),
      );
      const pid = server.child.pid!;
      log(`round ${round + 1}: restarted with [${args.join(" ")}] (pid ${pid}); settling ${SETTLE_S} s`);
      await sleep(SETTLE_S * 1000);
      const samples: number[] = [];
      for (let i = 0; i < 10; i++) {
        samples.push(procKb(pid, "VmRSS"));
        await sleep(1000);
      }
      const idle = {
        rss: percentile(samples, 50),
        anon: procKb(pid, "Anonymous", "smaps_rollup"),
        mapped: procKb(pid, "Rss", "smaps_rollup"),
        mappings: largestMappings(pid, 6),
      };
      log(`idle ${mb(idle.rss)} MB; answering FIRE for ${FIRE_S} s`);
      results[v]!.push({ ...idle, fire: await answerFire(server.url, token, pid, FIRE_S) });
      await stopChild(server.child);
    }
  const last = results[0]!.at(-1)!;
  console.log(
    [
      "```",
      machineLine(),
      `${new Date().toISOString()}; ${alerts.toLocaleString("en-AU")} alerts; load average before ${load0
        .map((l) => l.toFixed(2))
        .join(" ")}, now ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
      "```",
      "",
      `Idle RSS, MB (median of 10 samples after ${SETTLE_S} s), each restart on the same data, variants in turn:`,
      "",
      table(
        ["variant", "idle RSS per round", "anonymous / file-backed (last round)"],
        VARIANTS.map((args, v) => [
          args.length ? `\`${args.join(" ")}\`` : "as `npm start` runs it",
          results[v]!.map((r) => mb(r.rss)).join(", "),
          `${mb(results[v]!.at(-1)!.anon)} / ${mb(results[v]!.at(-1)!.mapped - results[v]!.at(-1)!.anon)}`,
        ]),
      ),
      "",
      `Answering an admin's FIRE (first page and up to 9 more by cursor, one request at a time) for ${FIRE_S} s after that, per round:`,
      "",
      table(
        ["variant", "peak RSS, MB", "median RSS, MB", "requests", "p50 / p95 ms"],
        VARIANTS.flatMap((args, v) =>
          results[v]!.map((r) => [
            args.length ? `\`${args.join(" ")}\`` : "as `npm start` runs it",
            mb(r.fire.peak),
            mb(r.fire.median),
            r.fire.requests,
            `${ms(r.fire.p50)} / ${ms(r.fire.p95)}`,
          ]),
        ),
      ),
      "",
      "Largest mappings by resident size (the first variant, last round, idle):",
      "",
      table(
        ["mapping", "size MB", "resident MB"],
        last.mappings.map((m) => [m.name, m.sizeMb.toFixed(1), m.rssMb.toFixed(1)]),
      ),
    ].join("\n"),
  );
});
