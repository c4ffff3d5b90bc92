import { readFileSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Cache } from "../../cache/cache.js";
import type { Config } from "../../config.js";
import type { Database, DatabaseHandle } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";
import { repoRoot, serverRoot } from "../../paths.js";

const round1 = (n: number) => Math.round(n * 10) / 10;
const percentOf = (part: number, whole: number) => (whole > 0 ? round1((part / whole) * 100) : null);

type CpuTimes = { idle: number; total: number };

function readCpuTimes(): CpuTimes[] {
  return os.cpus().map(({ times }) => ({
    idle: times.idle,
    total: times.user + times.nice + times.sys + times.idle + times.irq,
  }));
}

/** How often the background sampler reads the CPU counters; the figure is the busy share over that time. */
export const CPU_SAMPLE_MS = 5_000;
/** The first call waits this long between its two readings when no background sample exists yet. */
const FIRST_SAMPLE_MS = 200;

/**
 * CPU usage per core over the last sampling interval. A background timer (unref'd) reads the counters
 * every CPU_SAMPLE_MS, so a monitor call never waits; before the first tick a call measures from the
 * reading taken at start, or (within FIRST_SAMPLE_MS of the start) samples twice that far apart.
 */
export class CpuSampler {
  private previous: { times: CpuTimes[]; at: number } | null = null;
  private usage: number[] | null = null;
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.previous = { times: readCpuTimes(), at: Date.now() };
    this.timer = setInterval(() => this.tick(), CPU_SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Busy percentage (0-100) of each core. */
  async perCore(): Promise<number[]> {
    if (this.usage) return this.usage;
    // Before the first tick: since the start reading when that is long enough ago, else wait.
    if (this.previous && Date.now() - this.previous.at >= FIRST_SAMPLE_MS) {
      return busyShares(this.previous.times, readCpuTimes());
    }
    const before = readCpuTimes();
    await new Promise((resolve) => setTimeout(resolve, FIRST_SAMPLE_MS));
    return busyShares(before, readCpuTimes());
  }

  private tick(): void {
    const now = readCpuTimes();
    if (this.previous) this.usage = busyShares(this.previous.times, now);
    this.previous = { times: now, at: Date.now() };
  }
}

function busyShares(before: CpuTimes[], after: CpuTimes[]): number[] {
  return after.map((a, i) => {
    const b = before[i];
    const total = b ? a.total - b.total : 0;
    if (!b || total <= 0) return 0;
    return round1(Math.min(100, Math.max(0, (1 - (a.idle - b.idle) / total) * 100)));
  });
}

/** MemAvailable from /proc/meminfo on Linux (what the kernel can give without swapping), else free memory. */
async function availableMemory(): Promise<number> {
  try {
    const text = await readFile("/proc/meminfo", "utf8");
    const kb = /^MemAvailable:\s+(\d+) kB/m.exec(text)?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux: fall back below
  }
  return os.freemem();
}

/** SPEC 3 'System metrics' system part: load, CPU per core, memory, host name, platform, host uptime. */
export async function systemMetrics(cpu: CpuSampler) {
  const [cores, available] = await Promise.all([cpu.perCore(), availableMemory()]);
  const total = os.totalmem();
  const used = total - available;
  const [one = 0, five = 0, fifteen = 0] = os.loadavg();
  return {
    load_average: [one, five, fifteen].map((n) => Math.round(n * 100) / 100),
    cpu_usage: cores.length > 0 ? round1(cores.reduce((a, b) => a + b, 0) / cores.length) : null,
    total_cores: cores.length,
    cores: cores.map((usage, core_id) => ({ core_id, usage })),
    memory: { usage_percent: percentOf(used, total), used, total, available },
    hostname: os.hostname(),
    platform: `${os.type()} ${os.release()} (${os.platform()} ${os.arch()})`,
    // Durations in milliseconds, like every time figure of the monitor.
    host_uptime: Math.round(os.uptime() * 1000),
  };
}

const serverSrc = path.join(serverRoot, "src");

/** The product version: the workspace root's package.json. */
function readVersion(): string | null {
  try {
    return (
      (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version?: string })
        .version ?? null
    );
  } catch {
    return null;
  }
}

/** The newest modification time among the server's source files: when the running code last changed. */
async function newestSourceTime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSourceTime(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
      newest = Math.max(newest, (await stat(full)).mtimeMs);
  }
  return newest;
}

/**
 * Application facts that do not change while the process runs, read once: the version, and when the
 * server's code last changed (`last_compile`: tsx compiles the TypeScript on start, so the newest
 * source file's time is the compile input's time).
 */
export function createAppFacts() {
  const version = readVersion();
  const lastCompile = newestSourceTime(serverSrc)
    .then((t) => (t > 0 ? new Date(t).toISOString() : null))
    .catch(() => null);
  return { version, lastCompile };
}

/** When the served web app was built: the time of web/dist/index.html, null when there is no build. */
async function webBuildTime(webDistDir: string): Promise<string | null> {
  try {
    return (await stat(path.join(webDistDir, "index.html"))).mtime.toISOString();
  } catch {
    return null;
  }
}

/** SPEC 3 'System metrics' application part. `port` is the one listened on, else the configured one. */
export async function applicationMetrics(
  config: Config,
  facts: ReturnType<typeof createAppFacts>,
  listeningPort: number | null,
) {
  const memory = process.memoryUsage();
  const uptime = process.uptime();
  return {
    version: facts.version,
    environment: config.appEnv,
    port: listeningPort ?? config.port,
    process_id: process.pid,
    node_version: process.version,
    memory_usage: {
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      rss: memory.rss,
      external: memory.external,
    },
    start_time: new Date(Date.now() - uptime * 1000).toISOString(),
    last_compile: await facts.lastCompile,
    build_time: await webBuildTime(config.webDistDir),
    uptime: Math.round(uptime * 1000),
  };
}

/** Figures the embedded PGlite cannot give meaningfully: one in-process connection, no other sessions. */
export const PGLITE_NOT_APPLICABLE = ["connections_ratio", "max_connections", "slow_queries"] as const;

/** A running statement older than this counts as slow. */
export const SLOW_QUERY_SECONDS = 1;

type DbFacts = {
  version: string;
  database_size: string | number;
  max_connections: string | number;
  connections: string | number;
  slow: string | number;
  blks_hit: string | number | null;
  blks_read: string | number | null;
};

/**
 * SPEC 3 'System metrics' database part: status, engine, version, size, connections (all client
 * backends of the server against max_connections), buffer cache hit ratio of this database, a timed
 * `select 1` round trip (ms) and statements running longer than SLOW_QUERY_SECONDS. On PGlite the
 * connection figures and slow queries are null and named in `not_applicable`.
 */
export async function databaseMetrics(db: Database, engine: DatabaseHandle["kind"]) {
  const notApplicable: string[] = engine === "pglite" ? [...PGLITE_NOT_APPLICABLE] : [];
  const base = {
    status: "disconnected" as "connected" | "disconnected",
    engine: engine === "pglite" ? ("pglite" as const) : ("postgresql" as const),
    version: null as string | null,
    database_size: null as number | null,
    connections_ratio: null as number | null,
    active_connections: null as number | null,
    max_connections: null as number | null,
    cache_hit_ratio: null as number | null,
    query_time: null as number | null,
    slow_queries: null as number | null,
    not_applicable: notApplicable,
  };
  try {
    const started = performance.now();
    await db.execute(sql`select 1`);
    const queryTime = round1(performance.now() - started);
    const [f] = rowsOf<DbFacts>(
      await db.execute(sql`
        SELECT current_setting('server_version') AS version,
               pg_database_size(current_database()) AS database_size,
               current_setting('max_connections') AS max_connections,
               (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend') AS connections,
               (SELECT count(*) FROM pg_stat_activity
                 WHERE state = 'active' AND pid <> pg_backend_pid()
                   AND now() - query_start > make_interval(secs => ${SLOW_QUERY_SECONDS})) AS slow,
               d.blks_hit, d.blks_read
          FROM pg_stat_database d WHERE d.datname = current_database()`),
    );
    if (!f) return { ...base, status: "connected" as const, query_time: queryTime };
    const hit = Number(f.blks_hit ?? 0);
    const read = Number(f.blks_read ?? 0);
    const active = Number(f.connections);
    const max = Number(f.max_connections);
    return {
      ...base,
      status: "connected" as const,
      version: engine === "pglite" ? `PGlite (PostgreSQL ${f.version})` : `PostgreSQL ${f.version}`,
      database_size: Number(f.database_size),
      active_connections: active,
      ...(engine === "postgres"
        ? { max_connections: max, connections_ratio: percentOf(active, max), slow_queries: Number(f.slow) }
        : {}),
      cache_hit_ratio: percentOf(hit, hit + read),
      query_time: queryTime,
    };
  } catch {
    return base;
  }
}

const infoNumber = (info: Record<string, string>, key: string): number | null => {
  const v = info[key];
  if (v === undefined || v === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/**
 * SPEC 3 'System metrics' cache store part from Redis INFO: `not_configured` (every figure null) when
 * no REDIS_URL is set and the in-process store serves, `disconnected` when Redis does not answer.
 * Memory usage percent is against `maxmemory`, null when Redis has no limit (0).
 */
export async function redisMetrics(cache: Cache) {
  const empty = {
    version: null as string | null,
    connected_clients: null as number | null,
    max_clients: null as number | null,
    memory_usage_percent: null as number | null,
    memory_usage: null as number | null,
    memory_peak: null as number | null,
    hit_ratio: null as number | null,
    operations_per_sec: null as number | null,
    keyspace_hits: null as number | null,
    keyspace_misses: null as number | null,
  };
  if (cache.kind === "memory") return { status: "not_configured" as const, ...empty };
  const info = await cache.info();
  if (!info) return { status: "disconnected" as const, ...empty };
  const used = infoNumber(info, "used_memory");
  const maxMemory = infoNumber(info, "maxmemory");
  const hits = infoNumber(info, "keyspace_hits");
  const misses = infoNumber(info, "keyspace_misses");
  return {
    status: "connected" as const,
    version: info.redis_version ?? null,
    connected_clients: infoNumber(info, "connected_clients"),
    max_clients: infoNumber(info, "maxclients"),
    memory_usage_percent: used !== null && maxMemory ? percentOf(used, maxMemory) : null,
    memory_usage: used,
    memory_peak: infoNumber(info, "used_memory_peak"),
    hit_ratio: hits !== null && misses !== null ? percentOf(hits, hits + misses) : null,
    operations_per_sec: infoNumber(info, "instantaneous_ops_per_sec"),
    keyspace_hits: hits,
    keyspace_misses: misses,
  };
}
