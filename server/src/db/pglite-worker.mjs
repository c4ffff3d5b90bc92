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

async function run() {
  const port = parentPort;
  if (!port) return;
  /** @param {import("./pglite-protocol.ts").WorkerReply} reply */
  const post = (reply) => port.postMessage(reply);
  /** @type {PGlite} */
  let pg;
  try {
    // The data dir must be the first argument: `new PGlite(undefined, { extensions })` drops the extensions.
    pg = new PGlite(workerData.dir, { extensions: { pg_trgm } });
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
    const { id, sql, params, rowMode, rawDates } = request;
    pg.query(sql, params, { rowMode, ...(rawDates ? { parsers: RAW_DATE_PARSERS } : {}) }).then(
      (r) => post({ kind: "result", id, rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }),
      (err) => post({ kind: "error", id, error: serialize(err) }),
    );
  });
}

void run();
