import { existsSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { serverRoot } from "../paths.js";
import { EmbeddedDatabase } from "./pglite-remote.js";
import {
  DatabaseReachability,
  isConnectionFailure,
  isStorageFailure,
  markConnectFailure,
} from "./reachability.js";
import * as schema from "./schema.js";
import { checkDatabaseDir, freeBytes, LOW_FREE_BYTES, StorageStartError } from "./storage.js";

/** The Drizzle database, whichever engine is behind it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseHandle = {
  db: Database;
  /**
   * PostgreSQL only (null on PGlite, whose statement_timeout does not work): the same database, each
   * statement cancelled after QUICK_STATEMENT_MS. For look-ups worth doing only when they are quick.
   */
  quick: Database | null;
  kind: "pglite" | "postgres";
  /** Whether PostgreSQL can be reached, and whether the database can write (the embedded one's disk). */
  reachability: DatabaseReachability;
  close: () => Promise<void>;
};

export const migrationsFolder = path.join(serverRoot, "drizzle");

/**
 * Opens the database and brings its schema up to date: PostgreSQL when a URL is given,
 * otherwise embedded PGlite in `pgliteDir` (or in memory when that is "memory://").
 */
export async function openDatabase(options: {
  databaseUrl: string | null;
  pgliteDir: string;
  /**
   * In memory only: start from this data directory (`dumpMemoryDatabase`'s image) instead of running
   * initdb, which takes PGlite seconds. Tests open many databases; each one starts from a copy.
   */
  pgliteImage?: Blob;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(options.pgliteDir, options.pgliteImage);
}

/** The data directory of an in-memory database (see openDatabase's `pgliteImage`), as PGlite dumps it. */
export function dumpMemoryDatabase(handle: DatabaseHandle): Promise<Blob> {
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  return client.dumpDataDir("none") as Promise<Blob>;
}

/** How long opening a connection may take before the request fails (as unreachable) instead of hanging. */
const CONNECT_TIMEOUT_MS = 5_000;

/** How long a statement on DatabaseHandle.quick may run before PostgreSQL cancels it (SQLSTATE 57014). */
export const QUICK_STATEMENT_MS = 100;

async function openPostgres(url: string): Promise<DatabaseHandle> {
  const reachability = new DatabaseReachability();
  // No JIT compilation: every query here is short, and a page query's cost estimate (a LIMIT over
  // an index the planner expects to read to its end) passed JIT's thresholds, so compiling and
  // optimising its expressions took ~120 ms of a 15 ms search (issue 16).
  const pool = watchedPool(url, reachability, { max: 10, options: "-c jit=off" });
  // Its connections start with the timeout set, so a quick statement is one round trip, not the four
  // of a transaction with SET LOCAL (BEGIN, SET, the statement, COMMIT).
  const quickPool = watchedPool(url, reachability, {
    max: 4,
    options: `-c jit=off -c statement_timeout=${QUICK_STATEMENT_MS}`,
  });
  const db = drizzlePg({ client: pool, schema });
  db.transaction = releasingTransaction(pool) as typeof db.transaction;
  await migratePg(db, { migrationsFolder });
  return {
    db: db as unknown as Database,
    quick: drizzlePg({ client: quickPool, schema }) as unknown as Database,
    kind: "postgres",
    reachability,
    close: async () => {
      await Promise.all([pool.end(), quickPool.end()]);
    },
  };
}

/** A pool on `url` whose failures (to connect, of a connection) tell `reachability`. */
function watchedPool(
  url: string,
  reachability: DatabaseReachability,
  config: { max: number; options: string },
): pg.Pool {
  const pool = new pg.Pool({
    ...config,
    connectionString: url,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    Client: watchedClient(reachability),
  });
  // A connection that dies (a restart, a terminated backend) emits 'error': on the pool while idle, on
  // the client while checked out. Unheard, either is an uncaught 'error' event that ends the process;
  // the pool drops broken clients itself, and the query that was running rejects to its caller.
  pool.on("error", (err) => reachability.failed(err));
  pool.on("connect", (client) => {
    client.on("error", (err) => reachability.failed(err));
    reachability.answered();
  });
  return pool;
}

/** A pg client class whose failures to connect are tagged (and counted) as the database being unreachable. */
function watchedClient(reachability: DatabaseReachability): typeof pg.Client {
  return class WatchedClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
    override connect(
      callback?: (err: Error | null, client?: pg.Client) => void,
    ): Promise<pg.Client> | undefined {
      const failed = (err: Error) => {
        markConnectFailure(err);
        reachability.failed(err);
      };
      if (!callback)
        return super.connect().catch((err: Error) => {
          failed(err);
          throw err;
        });
      super.connect((err: Error | null, client?: pg.Client) => {
        if (err) failed(err);
        callback(err, client);
      });
      return undefined;
    }
  };
}

/**
 * Drizzle's transaction on a pool, but releasing its connection on every path: Drizzle's own leaks the
 * connection when BEGIN fails (it runs outside its try) and returns a connection whose COMMIT or
 * ROLLBACK died to the pool as if healthy. Ten such leaks leave the pool empty for good. A connection
 * that failed is released with the error, so the pool closes it instead of handing it out again.
 */
function releasingTransaction(pool: pg.Pool) {
  // One Drizzle instance per pooled connection, made on its first transaction: making one reads the
  // whole schema's relations again (~0.1 ms of CPU), and the pool hands out the same few clients.
  const onClients = new WeakMap<pg.PoolClient, Database>();
  return async <T>(
    run: (tx: Parameters<Parameters<Database["transaction"]>[0]>[0]) => Promise<T>,
    config?: Parameters<Database["transaction"]>[1],
  ): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      let onClient = onClients.get(client);
      if (!onClient) {
        onClient = drizzlePg({ client, schema }) as unknown as Database;
        onClients.set(client, onClient);
      }
      return await onClient.transaction(run, config);
    } catch (err) {
      if (isConnectionFailure(err)) broken = err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      client.release(broken);
    }
  };
}

/**
 * The embedded engine's modules are loaded only when it is used: a server on PostgreSQL never holds
 * PGlite (on disk, PGlite itself runs on its own thread and only Drizzle's side is loaded here).
 */
async function openPglite(dir: string, image: Blob | undefined): Promise<DatabaseHandle> {
  const [{ drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import("drizzle-orm/pglite"),
    import("drizzle-orm/pglite/migrator"),
  ]);
  const reachability = new DatabaseReachability();
  if (dir === "memory://") {
    const [{ PGlite }, { pg_trgm }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("@electric-sql/pglite/contrib/pg_trgm"),
    ]);
    // The data dir must be the first argument: `new PGlite(undefined, { extensions })` drops the extensions.
    const client = new PGlite(dir, { extensions: { pg_trgm }, loadDataDir: image });
    const db = drizzlePglite({ client, schema });
    await migratePglite(db, { migrationsFolder });
    return pgliteHandle(db, reachability, () => client.close());
  }
  // On disk PGlite runs on its own thread (pglite-remote.ts): a disk that fills up cannot stop the server.
  checkDatabaseDir(dir, !existsSync(path.join(dir, "PG_VERSION")));
  const client = await EmbeddedDatabase.open(dir, reachability).catch((err: unknown) => {
    throw startFailure(dir, err);
  });
  reachability.usePing(() => client.ping());
  const db = drizzlePglite({ client: client as unknown as PGlite, schema });
  try {
    await migratePglite(db, { migrationsFolder });
  } catch (err) {
    await client.close();
    throw startFailure(dir, err);
  }
  return pgliteHandle(db, reachability, () => client.close());
}

function pgliteHandle(
  db: unknown,
  reachability: DatabaseReachability,
  close: () => Promise<void>,
): DatabaseHandle {
  return { db: db as Database, quick: null, kind: "pglite", reachability, close };
}

/** Opening failed: when the disk is the reason (full, read-only), say so instead of PGlite's "failed to initialize". */
function startFailure(dir: string, err: unknown): unknown {
  const free = freeBytes(dir);
  if (!isStorageFailure(err) && (free === null || free >= LOW_FREE_BYTES)) return err;
  return new StorageStartError(
    `the embedded database in ${dir} cannot write: its disk is full or read-only (${free === null ? "free space unknown" : `${Math.floor(free / 1048576)} MB free`}; see "Disk space for the embedded database" in the README)`,
  );
}

/** How long a health check waits for the database: a connection that hangs counts as down. */
const PING_TIMEOUT_MS = 3_000;

/**
 * True when the database answers a trivial query within a few seconds. The embedded database answers
 * through its own ping (`reachability`), which does not wait behind queued writes: one connection
 * busy with a burst of ingest is not a database that is down.
 */
export async function pingDatabase(db: Database, reachability?: DatabaseReachability): Promise<boolean> {
  if (reachability?.ping) return reachability.ping();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
  });
  try {
    const ping = db.execute(sql`select 1`).then(
      () => true,
      () => false,
    );
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
