/**
 * What one message per request can reach at all on this machine (issue 16's ingest target: 10× PagerMon,
 * one message per POST, each poster waiting for its reply). Four servers on empty databases, posted to
 * in turns, one second each, by the side-by-side benchmark's sequential poster (posting.ts):
 *
 *   PagerMon        its app.js on an empty SQLite database (its own migrations)
 *   Turnout         the compiled server on a scratch PostgreSQL database with the bench agencies
 *   floor: insert   plain node:http + one durable INSERT … RETURNING id per message (floor-server.ts)
 *   floor: HTTP     plain node:http answering after parsing the form, no database
 *
 * The floors do none of what ingest must (duplicates, capcodes, agencies, the alert and its recipient,
 * search indexes, live events): they bound from above what any server of this kind, Node and a durable
 * PostgreSQL commit before the reply, can do one message at a time here. Each server's CPU per message
 * (its process only, from /proc) is reported beside the rate.
 *
 *   npx tsx bench/pagermon/ingest-floor.ts <pagermon-server-dir>
 *   BENCH_INGEST_SECONDS=20   seconds of posting per server
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { createAgencies } from "../server/lib/agencies.js";
import {
  environment,
  freePort,
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
} from "../server/lib/common.js";
import { countMessages, findPagerMon, startPagerMon } from "./pagermon.js";
import { type IngestSide, ingest, messageStream, post } from "./posting.js";

const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 20);
const KEY = "bench-ingest-key-0123456789";
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in these

/** User plus system CPU seconds a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14, 15)
}

async function startFloor(
  mode: "http" | "insert",
  databaseUrl: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "floor-server.ts")],
    {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        FLOOR_MODE: mode,
        FLOOR_KEY: KEY,
        DATABASE_URL: databaseUrl,
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  onExit(() => stopChild(child));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`floor server (${mode}) exited with ${child.exitCode}`);
    try {
      await fetch(url);
      return { url, child };
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`floor server (${mode}) did not listen within 30 s`);
}

async function main() {
  const pmArg = process.argv[2];
  if (!pmArg) throw new Error("usage: npx tsx bench/pagermon/ingest-floor.ts <pagermon-server-dir>");
  const pm = findPagerMon(pmArg);
  const scratch = await scratchDatabase();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();

  const turnout = await startServer(scratch.url, { INGEST_API_KEY: KEY });
  const capcodes = (await createAgencies(client)).flatMap((a) => a.capcodes.map((c) => c.capcode));

  const pmDir = mkdtempSync(path.join(tmpdir(), "pagermon-floor-"));
  onExit(() => rmSync(pmDir, { recursive: true, force: true }));
  const pmFile = path.join(pmDir, "messages.db");
  await (await startPagerMon(pm, pmFile, KEY, "migrated")).stop(); // its migrations make the schema
  const pagermon = await startPagerMon(pm, pmFile, KEY);

  const insert = await startFloor("insert", scratch.url);
  const bare = await startFloor("http", scratch.url);

  const servers = [
    { name: "PagerMon", url: pagermon.url, pid: pagermon.child.pid! },
    { name: "Turnout", url: turnout.url, pid: turnout.child.pid! },
    { name: "floor: insert", url: insert.url, pid: insert.child.pid! },
    { name: "floor: HTTP", url: bare.url, pid: bare.child.pid! },
  ];
  const sides: IngestSide[] = servers.map((s) => ({
    name: s.name,
    url: s.url,
    key: KEY,
    next: messageStream(capcodes),
  }));
  const count = async (): Promise<number[]> => [
    await countMessages(pm, pmFile),
    Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM alerts")).rows[0]!.n),
    Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM floor_messages")).rows[0]!.n),
    Number.NaN,
  ];

  try {
    for (const side of sides) for (let i = 0; i < 50; i++) await post(side); // warm-up
    const before = await count();
    const cpuBefore = servers.map((s) => cpuSeconds(s.pid));
    const loadBefore = os.loadavg()[0]!;
    log(`posting one message at a time, ${SECONDS} s per server in 1 s turns`);
    const results = await ingest(sides, 1, SECONDS);
    const cpu = servers.map((s, i) => cpuSeconds(s.pid) - cpuBefore[i]!);
    const after = await count();
    const loadAfter = os.loadavg()[0]!;
    const pagerMonRate = results[0]!.latencies.length / results[0]!.seconds;
    console.log(
      [
        await environment(scratch.url),
        `Load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after.`,
        "",
        table(
          [
            "server",
            "requests",
            "stored",
            "messages/s",
            "÷ PagerMon",
            "p50 ms",
            "p95 ms",
            "server CPU ms per message",
          ],
          servers.map((s, i) => {
            const r = results[i]!;
            const rate = r.latencies.length / r.seconds;
            return [
              s.name,
              r.latencies.length,
              Number.isNaN(after[i]!) ? "-" : after[i]! - before[i]!,
              rate.toFixed(0),
              `${(rate / pagerMonRate).toFixed(1)}×`,
              ms(percentile(r.latencies, 50)),
              ms(percentile(r.latencies, 95)),
              ((cpu[i]! * 1000) / r.latencies.length).toFixed(3),
            ];
          }),
        ),
        "",
        `10× PagerMon here: ${(10 * pagerMonRate).toFixed(0)} messages/s, ${ms(1000 / (10 * pagerMonRate))} ms a request.`,
      ].join("\n"),
    );
  } finally {
    await client.end();
    await pagermon.stop();
    for (const child of [turnout.child, insert.child, bare.child]) await stopChild(child);
    await scratch.drop();
  }
}

runMain(main);
