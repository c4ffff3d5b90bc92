import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, stopChild } from "../../../e2e/support/server.js";
import { SERVER_COMMAND, SERVER_ENV } from "../../../scripts/server-build.mjs";
import { createScratchDatabase } from "../../../server/test/scratch-database.js";

// One implementation with the browser tests.
export { freePort, stopChild };

export const repoRoot = path.resolve(import.meta.dirname, "../../..");

/**
 * The PostgreSQL server the benchmarks use (a scratch database is made on it and dropped after).
 * Load is only ever pointed at this machine.
 */
export function baseDatabaseUrl(): string {
  const url = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
  const host = new URL(url).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
    throw new Error(`benchmarks only run against a local PostgreSQL (DATABASE_URL host is ${host})`);
  }
  return url;
}

export type Scratch = { url: string; drop: () => Promise<void> };

/** A throwaway database; dropped on normal exit, on error, and on Ctrl-C (unless `keep`). */
export async function scratchDatabase(options: { keep?: boolean } = {}): Promise<Scratch> {
  const scratch = await createScratchDatabase(baseDatabaseUrl());
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await scratch.drop();
  };
  if (!options.keep) onExit(drop);
  return { url: scratch.url, drop };
}

const exitHooks: (() => Promise<void> | void)[] = [];
let signalsHooked = false;

/** Runs `hook` (newest first) when the process is interrupted; callers also run it on their way out. */
export function onExit(hook: () => Promise<void> | void): void {
  exitHooks.unshift(hook);
  if (signalsHooked) return;
  signalsHooked = true;
  // Ctrl-C signals the whole process group, and npx and tsx relay it to this process once more: a second
  // signal while the hooks run must not end the process (with `once`, the default action did, leaving
  // scratch databases and server directories behind). SIGKILL still stops it at once.
  let cleaning = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (cleaning) return;
      cleaning = true;
      process.stderr.write(`\n${signal}: cleaning up\n`);
      void runExitHooks().finally(() => process.exit(130));
    });
  }
}

export async function runExitHooks(): Promise<void> {
  for (const hook of exitHooks.splice(0)) {
    try {
      await hook();
    } catch (err) {
      process.stderr.write(`cleanup failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
}

/** Runs a benchmark's main function, cleaning up and exiting by itself whatever happens. */
export function runMain(main: () => Promise<void>): void {
  main()
    .then(async () => {
      await runExitHooks();
      process.exit(0);
    })
    .catch(async (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      // A benchmark that failed midway still holds database connections; dropping its scratch
      // database ends them, and a client without an error listener would throw from its socket and
      // stop the clean-up half done. Said in a line instead: the failure that matters is above.
      process.on("uncaughtException", (late: Error) =>
        process.stderr.write(`while cleaning up: ${late.message}\n`),
      );
      await runExitHooks();
      process.exit(1);
    });
}

export type RunningServer = { url: string; dataDir: string; child: ChildProcess; logs: () => string };

/** How the server runs: compiled JavaScript as `npm start` runs it, or TypeScript under tsx. */
export type ServerMode = "compiled" | "tsx";

/** An environment without the names set to "" (how a caller leaves out one the server is given by default). */
function withoutEmpty(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
}

/** True for a word NAME=value (an environment variable) among node arguments. */
export const isEnvWord = (word: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** The environment in words "NAME=value NAME2=" (NAME2= leaves out one the server is given by default). */
export function envOfWords(words: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    words.filter(isEnvWord).map((word) => {
      const at = word.indexOf("=");
      return [word.slice(0, at), word.slice(at + 1)];
    }),
  );
}

/** BENCH_SERVER_ENV="MALLOC_MMAP_THRESHOLD_=": the environment every benchmark's server gets on top. */
const BENCH_SERVER_ENV = envOfWords((process.env.BENCH_SERVER_ENV ?? "").split(" "));

/**
 * Starts the real server as a child process on a free 127.0.0.1 port, against `databaseUrl` (null:
 * the embedded database in a fresh DATA_DIR). By default it runs as `npm start` does: the compiled
 * server (server/dist/main.js, built first if stale); with BENCH_SERVER_ROOT (another checkout, e.g. an
 * older commit) or mode "tsx", from TypeScript under tsx; BENCH_SERVER_MODE=compiled|tsx says which
 * whatever the checkout. Extra node flags come from `nodeArgs`; the compiled server gets the environment
 * `npm start` gives it (SERVER_ENV), then BENCH_SERVER_ENV's and `env`; a name set to "" is left out.
 */
export async function startServer(
  databaseUrl: string | null,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  mode: ServerMode = (process.env.BENCH_SERVER_MODE as ServerMode | undefined) ??
    (process.env.BENCH_SERVER_ROOT ? "tsx" : "compiled"),
): Promise<RunningServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-bench-"));
  const port = await freePort();
  const cwd = process.env.BENCH_SERVER_ROOT || repoRoot;
  if (mode === "compiled")
    execFileSync(process.execPath, ["scripts/server-build.mjs"], { cwd, stdio: "inherit" });
  const entry = mode === "compiled" ? SERVER_COMMAND : ["--import", "tsx", "server/src/main.ts"];
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd,
    env: withoutEmpty({
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...(mode === "compiled" ? SERVER_ENV : {}),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...BENCH_SERVER_ENV,
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stdout?.on("data", (d) => (logs += d));
  child.stderr?.on("data", (d) => (logs += d));
  const server = { url: `http://127.0.0.1:${port}`, dataDir, child, logs: () => logs };
  onExit(async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${logs}`);
    try {
      if ((await fetch(`${server.url}/api/health`)).ok) {
        if (databaseUrl) await waitForPostcodeSeed(databaseUrl, deadline);
        return server;
      }
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`server did not become healthy within 60 s:\n${logs}`);
}

/** The server seeds ~18,000 postcodes in the background after it starts; measure only after that. */
async function waitForPostcodeSeed(databaseUrl: string, deadline: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ seeded: boolean }>(
        "SELECT EXISTS (SELECT 1 FROM postcodes) AS seeded",
      );
      if (rows[0]!.seeded) break;
      await sleep(250);
    }
  } finally {
    await client.end();
  }
  await sleep(500);
}

/** A progress line on stderr, stamped with the time (UTC), so stdout holds only the results. */
export function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Another CPU-bound process beside the benchmark (issue 32: "with another CPU-bound process running
 * beside it"): a Node process spinning on one core until the returned function stops it (or the
 * benchmark exits).
 */
export function startCpuNeighbour(): () => Promise<void> {
  const child = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  const stop = () => stopChild(child);
  onExit(stop);
  return stop;
}

/** The q-th percentile (1..100) of the values, nearest-rank. */
export function percentile(values: number[], q: number): number {
  // q is in percent: two benchmarks once passed 0.5 for the median and printed their fastest sample.
  if (!(q >= 1 && q <= 100)) throw new Error(`percentile: q is a percentage (1-100), got ${q}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((q / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/**
 * One "<field>: <n> kB" line of a process's /proc file, in kB (NaN when absent): `status` gives VmRSS
 * (resident now) and VmHWM (the highest since it started), `smaps_rollup` Rss and Anonymous.
 */
export function procKb(pid: number, field: string, file = "status"): number {
  const line = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/${file}`, "utf8"));
  return Number(line?.[1] ?? Number.NaN);
}

export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : "-");

/** A Markdown table (pastes straight into bench/README.md). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(headers),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...cells.slice(1).map(line),
  ].join("\n");
}

/** Machine, date and versions, for the README. */
export async function environment(databaseUrl: string): Promise<string> {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let pgVersion = "unknown";
  let settings = "";
  try {
    pgVersion = (await client.query<{ v: string }>("SELECT version() AS v")).rows[0]!.v.split(" on ")[0]!;
    const rows = await client.query<{ name: string; setting: string; unit: string | null }>(
      "SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers','work_mem','effective_cache_size','random_page_cost','jit') ORDER BY name",
    );
    settings = rows.rows.map((r) => `${r.name}=${r.setting}${r.unit ?? ""}`).join(", ");
  } finally {
    await client.end();
  }
  let nproc = String(os.cpus().length);
  try {
    nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  } catch {
    // os.cpus() then
  }
  const memGb = (os.totalmem() / 1024 ** 3).toFixed(1);
  return [
    `date: ${new Date().toISOString()}`,
    `machine: nproc ${nproc}, ${cpu}, ${memGb} GB memory`,
    `node ${process.version}; ${pgVersion} (${settings})`,
    `load average at the end (1/5/15 min): ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (other work on the machine distorts the figures)`,
  ].join("\n");
}
