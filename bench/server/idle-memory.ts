/**
 * Idle memory of the server process (issue 16: under 120 MB idle): the compiled server as `npm start`
 * runs it, and the TypeScript sources under tsx for comparison, each with PostgreSQL and with the
 * embedded database. Each server is started (a first start also seeds the postcodes; measured after a
 * restart on the same data, as a running installation is), served a few requests (the app shell,
 * health, a feed page), left to settle, then its RSS sampled every second.
 *
 *   npx tsx bench/server/idle-memory.ts            (BENCH_SETTLE_S=30 BENCH_SAMPLE_S=20 by default)
 *   BENCH_MODES=compiled npx tsx bench/server/idle-memory.ts      (what npm start runs only)
 */
import { machineLine } from "../support/machine.js";
import {
  baseDatabaseUrl,
  percentile,
  procKb,
  runMain,
  type ServerMode,
  scratchDatabase,
  sleep,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";

const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 30);
const SAMPLE_S = Number(process.env.BENCH_SAMPLE_S ?? 20);
/** Which ways of running the server are measured: "compiled" (npm start), "tsx" (TypeScript loader). */
const MODES = (process.env.BENCH_MODES ?? "compiled,tsx").split(",");

/** Resident set size of a process (what `ps` and the kernel count) in MB: now, or the highest since it started. */
function rssMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  return procKb(pid, field) / 1024;
}

async function measure(mode: ServerMode, databaseUrl: string | null) {
  // The first start seeds ~18,000 postcodes (a 25 MB JSON read once); a running installation restarts
  // on seeded data, so that is what is measured.
  const first = await startServer(databaseUrl, {}, [], mode);
  // Its highest RSS, reading the locality data and seeding (PostgreSQL: when this mode starts first).
  const firstPeak = rssMb(first.child.pid!, "VmHWM");
  await stopChild(first.child);
  const server = await startServer(databaseUrl, { DATA_DIR: first.dataDir }, [], mode);
  for (const path of ["/", "/api/health", "/login", "/api/health"])
    await (await fetch(server.url + path)).text();
  await sleep(SETTLE_S * 1000);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLE_S; i++) {
    samples.push(rssMb(server.child.pid!));
    await sleep(1000);
  }
  const restartPeak = rssMb(server.child.pid!, "VmHWM");
  await stopChild(server.child);
  return { p50: percentile(samples, 50), max: Math.max(...samples), firstPeak, restartPeak };
}

runMain(async () => {
  const pgUrl = (await scratchDatabase()).url;
  baseDatabaseUrl();
  const rows: (string | number)[][] = [];
  for (const [mode, label, url] of [
    ["compiled", "PostgreSQL", pgUrl],
    ["tsx", "PostgreSQL", pgUrl],
    ["compiled", "embedded PGlite", null],
    ["tsx", "embedded PGlite", null],
  ] as const) {
    if (!MODES.includes(mode)) continue;
    const { p50, max, firstPeak, restartPeak } = await measure(mode, url);
    rows.push([
      mode === "compiled" ? "compiled (npm start)" : "tsx (TypeScript loader)",
      label,
      p50.toFixed(1),
      max.toFixed(1),
      firstPeak.toFixed(1),
      restartPeak.toFixed(1),
    ]);
    process.stdout.write(`${mode} ${label}: ${p50.toFixed(1)} MB\n`);
  }
  process.stdout.write(`\n${machineLine()}\n\n`);
  process.stdout.write(
    `${table(
      ["server", "database", "idle RSS p50 MB", "max MB", "first start peak MB", "restart peak MB"],
      rows,
    )}\n`,
  );
});
