import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, types } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

// The embedded database's own thread (see pglite-remote.ts): PGlite runs here, so a query that never
// returns (a WAL write failing on a full disk leaves PGlite spinning in XLogFlush for good) blocks only
// this thread, which the main thread can then terminate, instead of the whole server. Plain JavaScript,
// so the thread loads no TypeScript loader: it holds PGlite and little else.

/** Drizzle's parsers (the same for every query it sends): dates, intervals and numeric arrays stay text. */
/** @param {string} value */
const identity = (value) => value;
const RAW_DATE_PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map(
    (oid) => [oid, identity],
  ),
);

/**
 * PostgreSQL's error fields (code, detail, hint, where, ...) survive the thread boundary; functions and
 * objects do not.
 * @param {unknown} err
 * @returns {import("./pglite-protocol.ts").SerializedError}
 */
function serialize(err) {
  const e = err instanceof Error ? err : new Error(String(err));
  /** @type {Record<string, string | number>} */
  const fields = {};
  for (const [key, value] of Object.entries(e)) {
    if (typeof value === "string" || typeof value === "number") fields[key] = value;
  }
  return { message: e.message, name: e.name, fields };
}

/**
 * The write-ahead log's bounds. PGlite's PostgreSQL runs in single-user mode, with no checkpointer:
 * by default max_wal_size is 1 GB, so it checkpoints (and recycles WAL segments) hardly ever, and
 * pg_wal grew past the data itself (145 MB after 20,000 alerts), filled small disks, and made the
 * recovery after a kill replay all of it. With max_wal_size at 48 MB a checkpoint runs (in the
 * statement that crosses the line) about every 25 MB of WAL, segments past it are removed or
 * recycled, and a recovery replays at most that much (bench/README.md, "The embedded database on
 * small disks").
 */
export const WAL_START_PARAMS = ["-c", "max_wal_size=48MB", "-c", "min_wal_size=32MB"];

/**
 * The buffer cache. PostgreSQL's default (128 MB) is touched at start, so it was resident in every
 * embedded server however small its data: 415 MB idle at 2,000 alerts, 306 MB with 32 MB (issue 32).
 * PGlite reads what is not cached through the file system, so the OS's page cache still holds the
 * rest of the data; search at 200,000 alerts showed no cost (bench/results/pglite-memory.md).
 */
export const MEMORY_START_PARAMS = ["-c", "shared_buffers=32MB"];

/** File-system errors that mean the disk will not take a write. */
const STORAGE_CODES = new Set(["ENOSPC", "EDQUOT", "EROFS", "EIO"]);

/**
 * Counts every write PGlite's file system makes that the disk refuses ([0]), and those to the
 * write-ahead log ([1]: pg_wal), in memory the main thread can read while this thread is busy (a
 * SharedArrayBuffer). A refused WAL write leaves PGlite broken for good, also once the disk has room
 * again (it answers that query with an error, then hangs on a later one or answers PANIC), so the main
 * thread replaces the instance; a refused table write is an ordinary error. PGlite's Emscripten file
 * system calls these through the `fs` module object, so replacing them there reaches it.
 * @param {Int32Array} failures
 */
function countStorageFailures(failures) {
  /** @type {Set<number>} */
  const walFds = new Set();
  const isWal = (/** @type {unknown} */ target) =>
    typeof target === "number" ? walFds.has(target) : String(target).includes("pg_wal");
  const mutable = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (fs));
  const wrap = (
    /** @type {string} */ name,
    /** @type {(result: unknown, args: unknown[]) => void} */ after,
  ) => {
    const original = /** @type {(...args: unknown[]) => unknown} */ (mutable[name]);
    mutable[name] = (/** @type {unknown[]} */ ...args) => {
      try {
        const result = original.apply(fs, args);
        after(result, args);
        return result;
      } catch (err) {
        if (STORAGE_CODES.has(/** @type {{ code?: string }} */ (err)?.code ?? "")) {
          Atomics.add(failures, 0, 1);
          if (isWal(args[0])) Atomics.add(failures, 1, 1);
        }
        throw err;
      }
    };
  };
  wrap("openSync", (fd, args) => {
    if (typeof fd === "number" && isWal(args[0])) walFds.add(fd);
  });
  wrap("closeSync", (_result, args) => walFds.delete(/** @type {number} */ (args[0])));
  for (const name of [
    "writeSync",
    "fsyncSync",
    "fdatasyncSync",
    "ftruncateSync",
    "writeFileSync",
    "mkdirSync",
    "renameSync",
  ])
    wrap(name, () => {});
}

async function run() {
  const port = parentPort;
  if (!port) return;
  /** @param {import("./pglite-protocol.ts").WorkerReply} reply */
  const post = (reply) => port.postMessage(reply);
  /** @type {PGlite} */
  let pg;
  if (workerData.failures) countStorageFailures(new Int32Array(workerData.failures));
  try {
    // The data dir must be the first argument: `new PGlite(undefined, { extensions })` drops the extensions.
    pg = new PGlite(workerData.dir, {
      extensions: { pg_trgm },
      startParams: [...PGlite.defaultStartParams, ...WAL_START_PARAMS, ...MEMORY_START_PARAMS],
    });
    await pg.waitReady;
  } catch (err) {
    post({ kind: "open-failed", error: serialize(err) });
    return;
  }
  post({ kind: "ready" });
  port.on("message", (/** @type {import("./pglite-protocol.ts").WorkerRequest} */ request) => {
    if (request.kind === "close") {
      void pg.close().finally(() => post({ kind: "closed" }));
      return;
    }
    // Answered here, not by PGlite: the thread is free (no statement running), so the database is up.
    if (request.kind === "ping") {
      post({ kind: "pong", id: request.id, closed: pg.closed });
      return;
    }
    const { id, sql, params, rowMode, rawDates } = request;
    pg.query(sql, params, { rowMode, ...(rawDates ? { parsers: RAW_DATE_PARSERS } : {}) }).then(
      (r) => post({ kind: "result", id, rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }),
      (err) => post({ kind: "error", id, error: serialize(err) }),
    );
  });
}

void run();
