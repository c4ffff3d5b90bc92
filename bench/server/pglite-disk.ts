/**
 * The embedded database on small disks (issue 29): how much disk PGlite takes per 10,000 alerts, how
 * big its write-ahead log (pg_wal) stays, and how long a start takes after kill -9 under load.
 *
 * The real server (compiled, as `npm start` runs it) on the embedded PGlite in a fresh DATA_DIR;
 * BENCH_ALERTS alerts (default 100,000, every text distinct, Victorian pager traffic) are posted in
 * batches of 100 from BENCH_SENDERS concurrent senders through POST /api/ingest/messages. Every
 * 10,000 the sizes of the database directory, of pg_wal and of the tables (base/) are printed. At the
 * end the server is killed with SIGKILL while a batch is in flight, started again on the same
 * directory, and timed until GET /api/health answers 200 (the WAL since the last checkpoint replayed).
 *
 *   npx tsx bench/server/pglite-disk.ts
 *   BENCH_ALERTS=20000 BENCH_KILLS=3 npx tsx bench/server/pglite-disk.ts
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { EmbeddedDatabase } from "../../server/src/db/pglite-remote.js";
import { DatabaseReachability } from "../../server/src/db/reachability.js";
import { log, runMain, sleep, startServer, stopChild, table } from "./lib/common.js";
import { PagerTraffic } from "./lib/messages.js";

const ALERTS = Number(process.env.BENCH_ALERTS ?? 100_000);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 2);
const KILLS = Number(process.env.BENCH_KILLS ?? 3);
const BATCH = 100;
const KEY = "pglite-disk-bench-ingest-key";

/** Megabytes used under `dir` (du, apparent sizes of allocated blocks). */
function mb(dir: string): number {
  const kb = Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split("\t")[0]);
  return Math.round((kb / 1024) * 10) / 10;
}

/**
 * MB of WAL a start must replay: from the last checkpoint's redo point to the end of the newest
 * segment written (read from pg_control's neighbour files: the segment names in pg_wal, modified
 * since the last checkpoint).
 */
async function walSinceCheckpoint(db: string): Promise<string> {
  // pg_controldata is not shipped with PGlite; the segments modified after global/pg_control was
  // (last written by a checkpoint) are what recovery reads.
  const control = Number(
    execFileSync("stat", ["-c", "%Y", path.join(db, "global/pg_control")], { encoding: "utf8" }),
  );
  const out = execFileSync(
    "find",
    [path.join(db, "pg_wal"), "-maxdepth", "1", "-type", "f", "-newermt", `@${control}`],
    { encoding: "utf8" },
  );
  return String(out.split("\n").filter((l) => /[0-9A-F]{24}$/.test(l)).length * 16);
}

async function post(url: string, messages: unknown[]): Promise<number> {
  const res = await fetch(`${url}/api/ingest/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY },
    body: JSON.stringify({ messages }),
  });
  await res.arrayBuffer();
  return res.status;
}

runMain(async () => {
  let server = await startServer(null, { INGEST_API_KEY: KEY });
  const dataDir = server.dataDir;
  const db = path.join(dataDir, "db");
  const traffic = new PagerTraffic(29);
  const batch = () =>
    Array.from({ length: BATCH }, (_, i) => ({
      capcode: String(1_000_000 + ((i * 7919) % 900)),
      message: traffic.next().raw,
    }));
  const rows: (string | number)[][] = [
    ["0", mb(db), mb(path.join(db, "pg_wal")), mb(path.join(db, "base")), "-"],
  ];
  let sent = 0;
  let mark = Date.now();
  while (sent < ALERTS) {
    const statuses = await Promise.all(Array.from({ length: SENDERS }, () => post(server.url, batch())));
    if (statuses.some((s) => s !== 200)) throw new Error(`ingest answered ${statuses.join(",")}`);
    sent += SENDERS * BATCH;
    if (sent % 10_000 === 0) {
      const rate = Math.round(10_000 / ((Date.now() - mark) / 1000));
      mark = Date.now();
      rows.push([String(sent), mb(db), mb(path.join(db, "pg_wal")), mb(path.join(db, "base")), rate]);
      log(`${sent} alerts: ${rows.at(-1)!.slice(1).join(" / ")}`);
    }
  }
  console.log(`\nDisk used by the embedded database (MB, du) while ${ALERTS} alerts arrive`);
  console.log(table(["alerts", "database dir", "pg_wal", "tables (base/)", "alerts/s"], rows));

  const recoveries: (string | number)[][] = [];
  for (let k = 0; k < KILLS; k++) {
    // Kill while a batch is being written, as a crash would.
    const inFlight = post(server.url, batch()).catch(() => 0);
    await sleep(30);
    server.child.kill("SIGKILL");
    await inFlight;
    if (server.child.exitCode === null && server.child.signalCode === null)
      await new Promise((r) => server.child.once("exit", r));
    const walBefore = mb(path.join(db, "pg_wal"));
    const replay = await walSinceCheckpoint(db);
    // The first time, the database alone: PGlite opened on its thread, recovering from its log.
    let openS = "-";
    if (k === 0) {
      const t = Date.now();
      const embedded = await EmbeddedDatabase.open(db, new DatabaseReachability());
      openS = ((Date.now() - t) / 1000).toFixed(1);
      await embedded.close();
      // Killed again so the server's start below also recovers (the close above checkpointed).
      const again = await startServer(null, { INGEST_API_KEY: KEY, DATA_DIR: dataDir });
      for (let i = 0; i < 20; i++) await post(again.url, batch());
      again.child.kill("SIGKILL");
      await new Promise((r) => again.child.once("exit", r));
    }
    const t = Date.now();
    server = await startServer(null, { INGEST_API_KEY: KEY, DATA_DIR: dataDir });
    recoveries.push([k + 1, walBefore, replay, openS, ((Date.now() - t) / 1000).toFixed(1)]);
    log(`kill -9 #${k + 1}: healthy after ${recoveries.at(-1)![4]} s (database alone ${openS} s)`);
    // More traffic before the next kill, so each finds WAL written since the last checkpoint.
    for (let i = 0; i < 20; i++) await post(server.url, batch());
  }
  console.log(`\nStart after kill -9 at ${ALERTS} alerts (process start to health 200, WAL replay included)`);
  console.log(
    table(
      [
        "kill",
        "pg_wal at kill (MB)",
        "WAL to replay (MB)",
        "database alone: open (s)",
        "server: spawn to health 200 (s)",
      ],
      recoveries,
    ),
  );
  console.log(
    `\nmachine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${new Date().toISOString()}`,
  );
  await stopChild(server.child);
});
