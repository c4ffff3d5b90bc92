/**
 * PagerMon (github.com/pagermon/pagermon: Express, knex, SQLite with an FTS3 index) as the side-by-side
 * benchmark runs it: an installation outside this project at the path given (bench/README.md says how
 * to install one; nothing of PagerMon is in this repository), its own sqlite3 module (loaded from its
 * node_modules, no dependency of ours), its own knex migrations, and its own app.js as a child process.
 *
 * PagerMon reads ./config/config.json, writes ./logs/ and keeps its sessions in ./sessions, all relative
 * to its working directory: each start gets a throwaway working directory holding our config, so the
 * installation itself is never written to. The database file lives wherever the caller says.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, onExit, sleep, stopChild } from "../server/lib/common.js";

type SqliteCallback = (err: Error | null) => void;

/** The part of node-sqlite3's Database this file uses. */
type SqliteNative = {
  run(sql: string, params: unknown[], callback: SqliteCallback): void;
  all(sql: string, params: unknown[], callback: (err: Error | null, rows: unknown[]) => void): void;
  close(callback: SqliteCallback): void;
};

/** The part of the node-sqlite3 module this file uses. */
type SqliteModule = {
  Database: new (file: string, mode: number, callback: SqliteCallback) => SqliteNative;
  OPEN_READONLY: number;
  OPEN_READWRITE: number;
  VERSION: string;
};

/** A database opened through PagerMon's own sqlite3 module, with promises. */
export class Sqlite {
  private constructor(private readonly db: SqliteNative) {}

  static open(module: SqliteModule, file: string, readOnly = false): Promise<Sqlite> {
    return new Promise((resolve, reject) => {
      const db = new module.Database(file, readOnly ? module.OPEN_READONLY : module.OPEN_READWRITE, (err) =>
        err ? reject(err) : resolve(new Sqlite(db)),
      );
    });
  }

  run(sql: string, params: unknown[] = []): Promise<void> {
    return new Promise((resolve, reject) =>
      this.db.run(sql, params, (err) => (err ? reject(err) : resolve())),
    );
  }

  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return new Promise((resolve, reject) =>
      this.db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }
}

/** An installed PagerMon server directory. */
export type PagerMon = {
  dir: string;
  /** Its package.json version (e.g. 0.3.13-beta). */
  version: string;
  sqlite: SqliteModule;
  /** node-sqlite3's version and the SQLite library inside it. */
  sqliteVersion: string;
  /** How many knex migrations it has: a database is ready once all of them have run. */
  migrations: number;
};

const INSTALL_HINT = "see bench/README.md, 'Turnout and PagerMon side by side', for how to install it";

/** Checks that `dirArg` is an installed PagerMon server directory (its `server/`), with clear errors. */
export function findPagerMon(dirArg: string): PagerMon {
  const dir = path.resolve(dirArg);
  if (!existsSync(dir))
    throw new Error(`no PagerMon at ${dir}: the directory does not exist (${INSTALL_HINT})`);
  const need = (file: string, what: string) => {
    if (!existsSync(path.join(dir, file)))
      throw new Error(
        `${dir} is not an installed PagerMon server: ${file} is missing (${what}; ${INSTALL_HINT})`,
      );
  };
  if (!existsSync(path.join(dir, "package.json")) && existsSync(path.join(dir, "server/app.js")))
    throw new Error(`${dir} is a PagerMon checkout: give its server directory, ${path.join(dir, "server")}`);
  need("package.json", "give the server/ directory of a PagerMon checkout");
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
    name?: string;
    version?: string;
  };
  if (pkg.name !== "pagermon")
    throw new Error(`${dir}/package.json is "${pkg.name}", not PagerMon's server (${INSTALL_HINT})`);
  need("app.js", "PagerMon's server entry point");
  need("config/default.json", "PagerMon's default configuration");
  need("knex/migrations", "PagerMon's database migrations");
  need("node_modules", "PagerMon's dependencies are not installed: run npm install there");
  const require = createRequire(path.join(dir, "package.json"));
  for (const name of ["express", "knex", "nconf", "connect-sqlite3", "passport-localapikey-update"]) {
    try {
      require.resolve(name);
    } catch {
      throw new Error(`PagerMon at ${dir} is not fully installed: ${name} is missing (${INSTALL_HINT})`);
    }
  }
  let sqlite: SqliteModule;
  let moduleVersion: string;
  try {
    sqlite = require("sqlite3") as SqliteModule;
    moduleVersion = (require("sqlite3/package.json") as { version: string }).version;
  } catch (err) {
    throw new Error(
      `PagerMon's sqlite3 module does not load on Node ${process.version} ` +
        `(${err instanceof Error ? err.message.split("\n")[0] : String(err)}): ` +
        `run npm install in ${dir}: its pinned sqlite3 (~4.0.2, 4.0.9) builds from source there with python3, ` +
        `make and g++ (${INSTALL_HINT})`,
    );
  }
  const migrations = readdirSync(path.join(dir, "knex/migrations")).filter((f) => f.endsWith(".js")).length;
  return {
    dir,
    version: pkg.version ?? "unknown",
    sqlite,
    sqliteVersion: `sqlite3 ${moduleVersion} (SQLite ${sqlite.VERSION})`,
    migrations,
  };
}

export type PagerMonServer = {
  url: string;
  child: ChildProcess;
  /** Its working directory (config, logs, sessions); removed when it stops. */
  runDir: string;
  /** The end of what it printed (stdout and stderr go to a file in runDir). */
  output: () => string;
  stop: () => Promise<void>;
};

/**
 * PagerMon's shipped config (its config/default.json) with: the database file, an API key of ours
 * (`apiKey`), `messages.apiSecurity` on (reading the message list and search then needs a key or a
 * signed-in session, as Turnout's always does) and its log level at "error". Everything else as shipped:
 * 20 messages a page (maxLimit 120), duplicate filtering on, no plugins.
 */
function writeConfig(pm: PagerMon, runDir: string, dbFile: string, apiKey: string): void {
  const config = JSON.parse(readFileSync(path.join(pm.dir, "config/default.json"), "utf8")) as {
    global: Record<string, unknown>;
    database: Record<string, unknown>;
    messages: Record<string, unknown>;
    auth: { keys: { name: string; key: string }[] } & Record<string, unknown>;
  };
  config.global.loglevel = "error";
  config.database.type = "sqlite3";
  config.database.file = dbFile;
  config.messages.apiSecurity = true;
  config.auth.keys = [{ name: "bench", key: apiKey }];
  mkdirSync(path.join(runDir, "config"));
  mkdirSync(path.join(runDir, "logs"));
  writeFileSync(path.join(runDir, "config/config.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/**
 * Starts PagerMon's app.js (it listens by itself; the repository has no bin/www) on a free port with
 * NODE_ENV=production (as its pm2 file runs it), against `dbFile`. Resolves once it answers the
 * message list with our key, or (`until: "migrated"`, for an empty database) once its knex migrations
 * have all run. Stopped (and its working directory removed) on exit if not before.
 */
export async function startPagerMon(
  pm: PagerMon,
  dbFile: string,
  apiKey: string,
  until: "serving" | "migrated" = "serving",
): Promise<PagerMonServer> {
  const runDir = mkdtempSync(path.join(tmpdir(), "pagermon-bench-"));
  writeConfig(pm, runDir, dbFile, apiKey);
  const port = await freePort();
  const outFile = path.join(runDir, "output.log");
  const out = openSync(outFile, "w");
  // Its console.time lines go to a file, not through a pipe this process would have to read.
  const child = spawn(process.execPath, [path.join(pm.dir, "app.js")], {
    cwd: runDir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      NODE_ENV: "production",
    },
    stdio: ["ignore", out, out],
  });
  closeSync(out);
  const output = () => {
    try {
      return readFileSync(outFile, "utf8").slice(-4000);
    } catch {
      return "";
    }
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopChild(child);
    rmSync(runDir, { recursive: true, force: true });
  };
  onExit(stop);
  const server: PagerMonServer = { url: `http://127.0.0.1:${port}`, child, runDir, output, stop };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`PagerMon exited with ${child.exitCode}:\n${output()}`);
    if (until === "migrated" ? await migrated(pm, dbFile) : await answers(server.url, apiKey)) return server;
    await sleep(200);
  }
  throw new Error(`PagerMon did not become ready within 120 s:\n${output()}`);
}

/** All of PagerMon's migrations have run on `dbFile` and the migration lock is free. */
async function migrated(pm: PagerMon, dbFile: string): Promise<boolean> {
  if (!existsSync(dbFile)) return false;
  let db: Sqlite | null = null;
  try {
    db = await Sqlite.open(pm.sqlite, dbFile, true);
    const [done] = await db.all<{ n: number }>("SELECT count(*) AS n FROM knex_migrations");
    const [lock] = await db.all<{ locked: number }>(
      "SELECT coalesce(max(is_locked), 0) AS locked FROM knex_migrations_lock",
    );
    return done!.n === pm.migrations && lock!.locked === 0;
  } catch {
    return false; // not created yet, or locked by the migration itself
  } finally {
    await db?.close().catch(() => {});
  }
}

/** GET /api/messages?limit=1 with the key answers 200. */
function answers(url: string, apiKey: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/messages?limit=1`, { headers: { apikey: apiKey } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode === 200));
    });
    req.on("error", () => resolve(false));
    req.setTimeout(10_000, () => req.destroy());
  });
}

/** A row of PagerMon's capcodes table (its aliases). */
export type PagerMonCapcode = { id: number; address: string; alias: string; agency: string };

/** A row of PagerMon's messages table. */
export type PagerMonMessage = {
  id: number;
  address: string;
  message: string;
  /** Unix seconds, as PagerMon's reader posts `datetime`. */
  timestamp: number;
  aliasId: number | null;
};

/**
 * Host parameters one statement may hold. PagerMon pins sqlite3 ~4.0.2 (4.0.9 installs), whose SQLite
 * 3.28 has the old default SQLITE_MAX_VARIABLE_NUMBER of 999 (32,766 only since SQLite 3.32): 500 rows
 * of 6 parameters failed there with "SQLITE_ERROR: too many SQL variables". Statements are cut to fit.
 */
const SQLITE_MAX_VARIABLES = 999;

/** As many rows of `columns` parameters as one statement may hold under SQLITE_MAX_VARIABLES. */
export function rowsPerStatement(columns: number): number {
  return Math.floor(SQLITE_MAX_VARIABLES / columns);
}

/**
 * Writes the capcodes and then the messages, page by page (one transaction per page), into a database
 * that PagerMon has just migrated and that holds no messages yet. PagerMon's own FTS3 trigger
 * (messages_search_index_insert) stays on and fills the search index row by row, as it does for every
 * message PagerMon receives; only `synchronous = OFF` (this connection only) differs from PagerMon's
 * own writes. Returns the messages written.
 */
export async function loadPagerMon(
  pm: PagerMon,
  dbFile: string,
  capcodes: PagerMonCapcode[],
  pages: AsyncIterable<PagerMonMessage[]>,
  log: (line: string) => void,
): Promise<number> {
  const db = await Sqlite.open(pm.sqlite, dbFile);
  try {
    const [existing] = await db.all<{ n: number }>("SELECT count(*) AS n FROM messages");
    if (existing!.n !== 0) throw new Error(`${dbFile} already holds ${existing!.n} messages`);
    await db.run("PRAGMA synchronous = OFF");
    await db.run("BEGIN");
    const capcodeRows = rowsPerStatement(4);
    for (let i = 0; i < capcodes.length; i += capcodeRows) {
      const chunk = capcodes.slice(i, i + capcodeRows);
      await db.run(
        `INSERT INTO capcodes (id, address, alias, agency, ignore) VALUES ${chunk.map(() => "(?, ?, ?, ?, 0)").join(", ")}`,
        chunk.flatMap((c) => [c.id, c.address, c.alias, c.agency]),
      );
    }
    await db.run("COMMIT");
    let written = 0;
    let nextLog = 100_000;
    const t0 = performance.now();
    const messageRows = rowsPerStatement(5);
    for await (const page of pages) {
      await db.run("BEGIN");
      for (let i = 0; i < page.length; i += messageRows) {
        const chunk = page.slice(i, i + messageRows);
        await db.run(
          `INSERT INTO messages (id, address, message, source, timestamp, alias_id) VALUES ${chunk.map(() => "(?, ?, ?, 'bench', ?, ?)").join(", ")}`,
          chunk.flatMap((m) => [m.id, m.address, m.message, m.timestamp, m.aliasId]),
        );
      }
      await db.run("COMMIT");
      written += page.length;
      if (written >= nextLog) {
        log(
          `PagerMon: ${written.toLocaleString("en-AU")} messages (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
        );
        nextLog += 100_000;
      }
    }
    const [counts] = await db.all<{ messages: number; indexed: number }>(
      "SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM messages_search_index) AS indexed",
    );
    if (counts!.messages !== written || counts!.indexed !== written)
      throw new Error(
        `PagerMon load: ${counts!.messages} messages and ${counts!.indexed} index rows, expected ${written}`,
      );
    return written;
  } finally {
    await db.close();
  }
}

/** How many messages a PagerMon database holds (read beside a running PagerMon). */
export async function countMessages(pm: PagerMon, dbFile: string): Promise<number> {
  const db = await Sqlite.open(pm.sqlite, dbFile, true);
  try {
    const [row] = await db.all<{ n: number }>("SELECT count(*) AS n FROM messages");
    return row!.n;
  } finally {
    await db.close();
  }
}
