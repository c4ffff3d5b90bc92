/**
 * Memory of the embedded default (issue 32: PGlite under 250 MB idle, under 400 MB answering FIRE): the
 * compiled server as `npm start` runs it with no DATABASE_URL, on a fresh DATA_DIR that the first start
 * seeds (postcodes) and BENCH_ALERTS alerts loaded through the ingest API; then restarted on that data,
 * left to settle, its RSS sampled (idle only: the memory while answering FIRE is not measured here yet).
 * What the resident memory is made of comes from /proc/<pid>/smaps_rollup
 * (anonymous: the JavaScript heaps and PGlite's WASM memory; file-backed: the node binary and libraries)
 * and from /proc/<pid>/smaps (the largest anonymous mappings: a WASM memory is one large mapping).
 *
 *   npx tsx bench/server/pglite-memory.ts          BENCH_ALERTS=20000 BENCH_SETTLE_S=45 BENCH_ROUNDS=1
 *   BENCH_NODE_ARGS="|--wasm-lazy-compilation" BENCH_ROUNDS=2 npx tsx bench/server/pglite-memory.ts
 */

import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { machineLine } from "../support/machine.js";
import { log, percentile, runMain, sleep, startServer, stopChild, table } from "./lib/common.js";
import { PagerTraffic, rng } from "./lib/messages.js";

const ALERTS = Number(process.env.BENCH_ALERTS ?? 20_000);
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 45);
const KEY = "bench-ingest-key-0123456789";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/**
 * BENCH_NODE_ARGS="|--wasm-lazy-compilation": variants of the server's node arguments, separated by
 * "|" (an empty one: as `npm start` runs it), measured in turn on the same data.
 */
const VARIANTS = (process.env.BENCH_NODE_ARGS ?? "").split("|").map((v) => v.split(" ").filter(Boolean));

type Idle = { rss: number; anon: number; mapped: number; mappings: ReturnType<typeof largestMappings> };

const kb = (pid: number, field: string, file = "status") =>
  Number(
    new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/${file}`, "utf8"))?.[1] ?? NaN,
  );
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

runMain(async () => {
  const load0 = os.loadavg();
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
  // Each variant (node arguments) restarted on the same data in turn, ROUNDS times.
  const results = VARIANTS.map(() => [] as Idle[]);
  for (let round = 0; round < ROUNDS; round++)
    for (const [v, args] of VARIANTS.entries()) {
      const server = await startServer(null, { INGEST_API_KEY: KEY, DATA_DIR: first.dataDir }, args);
      const pid = server.child.pid!;
      log(`round ${round + 1}: restarted with [${args.join(" ")}] (pid ${pid}); settling ${SETTLE_S} s`);
      await sleep(SETTLE_S * 1000);
      const samples: number[] = [];
      for (let i = 0; i < 10; i++) {
        samples.push(kb(pid, "VmRSS"));
        await sleep(1000);
      }
      results[v]!.push({
        rss: percentile(samples, 50),
        anon: kb(pid, "Anonymous", "smaps_rollup"),
        mapped: kb(pid, "Rss", "smaps_rollup"),
        mappings: largestMappings(pid, 6),
      });
      await stopChild(server.child);
    }
  const last = results[0]!.at(-1)!;
  console.log(
    [
      "```",
      machineLine(),
      `${new Date().toISOString()}; ${ALERTS.toLocaleString("en-AU")} alerts; load average before ${load0
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
        ["node arguments", "idle RSS per round", "anonymous / file-backed (last round)"],
        VARIANTS.map((args, v) => [
          args.length ? `\`${args.join(" ")}\`` : "as `npm start` runs it",
          results[v]!.map((r) => mb(r.rss)).join(", "),
          `${mb(results[v]!.at(-1)!.anon)} / ${mb(results[v]!.at(-1)!.mapped - results[v]!.at(-1)!.anon)}`,
        ]),
      ),
      "",
      "Largest mappings by resident size (the first variant, last round):",
      "",
      table(
        ["mapping", "size MB", "resident MB"],
        last.mappings.map((m) => [m.name, m.sizeMb.toFixed(1), m.rssMb.toFixed(1)]),
      ),
    ].join("\n"),
  );
});
