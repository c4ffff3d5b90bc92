/**
 * Building and sending a page of 50 alerts, in isolation (issue 32): what one feed or search request
 * costs the server's CPU, and where that CPU goes.
 *
 *   BENCH_DB=bench200k npx tsx bench/server/page-building.ts      (a database load-search.ts made)
 *   BENCH_ALERTS=20000 npx tsx bench/server/page-building.ts      (a scratch database, dropped after)
 *
 *   BENCH_REQUESTS=300     timed requests per kind (after BENCH_WARMUP=50 untimed ones)
 *   BENCH_PROFILE=1        also profile the server (--cpu-prof) and split its CPU by where it goes
 *
 * The compiled server (as `npm start` runs it) on PostgreSQL, one client request at a time (keep-alive),
 * for each kind of page: search for the rare word (the query itself takes ~1-2 ms in PostgreSQL, so what
 * is left is page building), the first page of the feed, and /alerts/recent, each as an admin and as a
 * member of a small agency; /api/auth/profile beside them as the floor of any signed-in request.
 *
 * Server CPU per request: utime + stime of the server process (/proc/<pid>/stat) over the timed
 * requests, divided by their number (the server's idle CPU over as long is measured first and
 * subtracted). PostgreSQL's CPU is not in it. With BENCH_PROFILE=1 the server runs with --cpu-prof
 * (250 µs sampling), and the samples taken during each kind's timed requests (by the monotonic clock) are split by
 * the code they were in (leaf-most frame of a known package or function): pg driver, drizzle, fastify,
 * zod, JSON serialisation, logging, the presenters, the search service, node core, GC.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { ALERT_PAGE_SIZE } from "@turnout/domain";
import pg from "pg";
import { openDatabase } from "../../server/src/db/client.js";
import { machineLine } from "../support/machine.js";
import { createAgencies } from "./lib/agencies.js";
import {
  baseDatabaseUrl,
  log,
  ms,
  onExit,
  percentile,
  runMain,
  scratchDatabase,
  sleep,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";
import { PagerTraffic, RARE_SUBURB } from "./lib/messages.js";
import { loadAlerts } from "./lib/search-load.js";
import { createBenchViewers } from "./lib/viewers.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const PROFILE = process.env.BENCH_PROFILE === "1";
const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0032";
const CLOCK_TICK_MS = 10; // USER_HZ 100 on Linux

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
}

async function database(): Promise<{ url: string; label: string }> {
  if (process.env.BENCH_ALERTS) {
    const total = Number(process.env.BENCH_ALERTS);
    const scratch = await scratchDatabase();
    const migrated = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
    await migrated.close();
    const pool = new pg.Pool({ connectionString: scratch.url, max: 3 });
    try {
      const client = await pool.connect();
      const agencies = await createAgencies(client);
      client.release();
      await loadAlerts(pool, agencies, new PagerTraffic(1), total, log);
    } finally {
      await pool.end();
    }
    return { url: scratch.url, label: `a scratch database of ${total.toLocaleString("en-AU")} alerts` };
  }
  const name = process.env.BENCH_DB ?? "bench1m";
  if (!/^bench\w*$/.test(name)) throw new Error("BENCH_DB must name a database load-search.ts made");
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  return { url: url.toString(), label: `database ${name} (load-search.ts)` };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; resolves with its status, body size and wall time. */
function get(url: string, token: string): Promise<{ status: number; bytes: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let bytes = 0;
      res.on("data", (d: Buffer) => (bytes += d.length));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - t0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

type Kind = { name: string; path: string; viewer: "admin" | "small" };

const search = (params: Record<string, string>) =>
  `/api/alerts/search?${new URLSearchParams({ limit: String(ALERT_PAGE_SIZE), ...params })}`;

const KINDS: Kind[] = [
  { name: "profile (floor of a signed-in request)", path: "/api/auth/profile", viewer: "small" },
  {
    name: "search rare word, admin",
    path: search({ search: RARE_SUBURB, admin_context: "true" }),
    viewer: "admin",
  },
  { name: "search rare word, small agency", path: search({ search: RARE_SUBURB }), viewer: "small" },
  { name: "feed page 1, admin", path: search({ admin_context: "true" }), viewer: "admin" },
  { name: "feed page 1, small agency", path: search({}), viewer: "small" },
  { name: "recent (50), small agency", path: `/api/alerts/recent?limit=${ALERT_PAGE_SIZE}`, viewer: "small" },
];

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
};
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };

const PRESENTERS = new Set([
  "presentAlert",
  "presentForViewer",
  "unitsOf",
  "toGroup",
  "groupPage",
  "presentAlerts",
  "presentPage",
]);

/** Where a sample's time goes: the leaf-most frame of a known package or function decides. */
function category(stack: ProfileNode["callFrame"][]): string {
  const leaf = stack[0]!;
  if (leaf.functionName === "(garbage collector)") return "GC";
  if (leaf.functionName === "(program)") return "V8 (program)";
  if (stack.some((f) => f.functionName === "stringify" && !f.url)) return "JSON serialisation";
  for (const f of stack) {
    const u = f.url;
    if (!u) continue;
    if (/node_modules\/(pg|pg-protocol|pg-types|postgres-array|postgres-date|pg-pool)\//.test(u))
      return "pg driver (protocol, row parsing)";
    if (u.includes("node_modules/drizzle-orm/")) return "drizzle (SQL building, row mapping)";
    if (/node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers)\//.test(u)) return "logging";
    if (/node_modules\/(zod|fastify-type-provider-zod)\//.test(u)) return "validation (zod)";
    if (u.includes("node_modules/jose/")) return "auth (JWT)";
    if (u.includes("node_modules/fast-json-stringify/")) return "JSON serialisation";
    if (/node_modules\/(fastify|find-my-way|avvio|@fastify|light-my-request|fastify-plugin)\//.test(u))
      return "fastify (routing, hooks, reply)";
    if (u.startsWith("node:")) return "node core (http, net, streams)";
    if (u.includes("node_modules/"))
      return `other package (${/node_modules\/((@[^/]+\/)?[^/]+)/.exec(u)?.[1]})`;
    if (PRESENTERS.has(f.functionName)) return "presenters";
    return `Turnout (${f.functionName || "anonymous"})`;
  }
  return `native (${leaf.functionName})`;
}

/** Now on CLOCK_MONOTONIC in µs: the clock V8's CPU profile stamps its samples with (in any process). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Splits the profile's samples by window (monotonic µs, as monotonicUs), each by category, in ms. */
function splitProfile(profile: CpuProfile, windows: [number, number][]): Map<string, number>[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categoryOf = new Map<number, string>();
  const categorise = (id: number) => {
    let c = categoryOf.get(id);
    if (c === undefined) {
      const stack: ProfileNode["callFrame"][] = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
        stack.push(byId.get(cur)!.callFrame);
      c = category(stack);
      categoryOf.set(id, c);
    }
    return c;
  };
  const out = windows.map(() => new Map<string, number>());
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const w = windows.findIndex(([from, to]) => t >= from && t < to);
    if (w < 0) continue;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === "(idle)") continue;
    const us = profile.timeDeltas[i + 1] ?? 0; // a sample's time is the delta to the next one
    const c = categorise(node.id);
    out[w]!.set(c, (out[w]!.get(c) ?? 0) + us / 1000);
  }
  return out;
}

async function main() {
  const load0 = os.loadavg();
  const db = await database();
  const tokens = await createBenchViewers(db.url, JWT_SECRET, { label: "Page building", phoneSlot: 8000 });
  const profileDir = mkdtempSync(path.join(tmpdir(), "page-building-prof-"));
  if (!process.env.BENCH_KEEP_PROFILE) onExit(() => rmSync(profileDir, { recursive: true, force: true }));
  else log(`profile kept in ${profileDir}`);
  const nodeArgs = PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-interval=250"] : [];
  const server = await startServer(db.url, { JWT_SECRET, LOG_LEVEL: "warn" }, nodeArgs, "compiled");
  const pid = server.child.pid!;
  // The server's idle CPU (timers, pollers), subtracted from each kind.
  await sleep(3000);
  const idle0 = cpuMs(pid);
  const idleT0 = performance.now();
  await sleep(5000);
  const idlePerMs = (cpuMs(pid) - idle0) / (performance.now() - idleT0);
  const rows: (string | number)[][] = [];
  const windows: [number, number][] = [];
  const results: { kind: Kind; cpuPerRequest: number; p50: number; bytes: number }[] = [];
  for (const kind of KINDS) {
    const url = server.url + kind.path;
    const token = tokens[kind.viewer];
    let bytes = 0;
    for (let i = 0; i < WARMUP; i++) {
      const r = await get(url, token);
      if (r.status !== 200) throw new Error(`${kind.name}: ${r.status}`);
      bytes = r.bytes;
    }
    const times: number[] = [];
    const w0 = monotonicUs();
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS; i++) times.push((await get(url, token)).ms);
    const wall = performance.now() - t0;
    const cpu = cpuMs(pid) - c0 - idlePerMs * wall;
    windows.push([w0, monotonicUs()]);
    const cpuPerRequest = cpu / REQUESTS;
    results.push({ kind, cpuPerRequest, p50: percentile(times, 50), bytes });
    rows.push([
      kind.name,
      `${(bytes / 1000).toFixed(1)} KB`,
      ms(cpuPerRequest),
      ms(percentile(times, 50)),
      ms(percentile(times, 95)),
      os.loadavg()[0]!.toFixed(2),
    ]);
    log(`${kind.name}: ${ms(cpuPerRequest)} ms CPU per request`);
  }
  await stopChild(server.child);

  const out = [
    "```",
    machineLine(),
    `${new Date().toISOString()}; ${db.label}; ${REQUESTS} timed requests per kind after ${WARMUP} untimed`,
    `load average before (1/5/15 min): ${load0.map((l) => l.toFixed(2)).join(" ")}; after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
    `server idle CPU subtracted: ${(idlePerMs * 1000).toFixed(1)} ms per s`,
    "```",
    "",
    table(["kind", "response", "server CPU ms / request", "p50 ms", "p95 ms", "load (1 min)"], rows),
  ];
  if (PROFILE) {
    const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error("the server wrote no CPU profile");
    const split = splitProfile(JSON.parse(readFileSync(path.join(profileDir, file), "utf8")), windows);
    const categories = [...new Set(split.flatMap((w) => [...w.keys()]))];
    const totals = new Map(categories.map((c) => [c, split.reduce((n, w) => n + (w.get(c) ?? 0), 0)]));
    categories.sort((a, b) => totals.get(b)! - totals.get(a)!);
    const shown = categories.slice(0, 18);
    out.push(
      "",
      "Where the server's CPU goes, ms per request (CPU profile, 250 µs samples; the leaf-most frame of a " +
        "known package or function decides; the rest of each column is in smaller categories):",
      "",
      table(
        ["where", ...KINDS.map((k) => k.name)],
        shown.map((c) => [c, ...split.map((w) => ms((w.get(c) ?? 0) / REQUESTS))]),
      ),
      "",
      `Total profiled per request: ${split.map((w) => ms([...w.values()].reduce((a, b) => a + b, 0) / REQUESTS)).join(", ")}`,
    );
  }
  console.log(out.join("\n"));
}

runMain(main);
