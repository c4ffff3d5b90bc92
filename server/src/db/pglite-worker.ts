import { parentPort, workerData } from "node:worker_threads";
import { PGlite, types } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

// The embedded database's own thread (see pglite-remote.ts): PGlite runs here, so a query that never
// returns (a WAL write failing on a full disk leaves PGlite spinning in XLogFlush for good) blocks only
// this thread, which the main thread can then terminate, instead of the whole server.

export type WorkerRequest =
  | {
      kind: "query";
      id: number;
      sql: string;
      params: unknown[];
      rowMode: "array" | "object";
      rawDates: boolean;
    }
  | { kind: "close" };

export type SerializedError = { message: string; name: string; fields: Record<string, string | number> };

export type WorkerReply =
  | { kind: "ready" }
  | { kind: "open-failed"; error: SerializedError }
  | { kind: "result"; id: number; rows: unknown[]; fields: unknown[]; affectedRows?: number }
  | { kind: "error"; id: number; error: SerializedError }
  | { kind: "closed" };

/** Drizzle's parsers (the same for every query it sends): dates, intervals and numeric arrays stay text. */
const identity = (value: string) => value;
const RAW_DATE_PARSERS = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map(
    (oid) => [oid, identity],
  ),
);

/** PostgreSQL's error fields (code, detail, hint, where, ...) survive the thread boundary; functions and objects do not. */
function serialize(err: unknown): SerializedError {
  const e = err instanceof Error ? err : new Error(String(err));
  const fields: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(e)) {
    if (typeof value === "string" || typeof value === "number") fields[key] = value;
  }
  return { message: e.message, name: e.name, fields };
}

async function run(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const post = (reply: WorkerReply) => port.postMessage(reply);
  let pg: PGlite;
  try {
    // The data dir must be the first argument: `new PGlite(undefined, { extensions })` drops the extensions.
    pg = new PGlite(workerData.dir as string, { extensions: { pg_trgm } });
    await pg.waitReady;
  } catch (err) {
    post({ kind: "open-failed", error: serialize(err) });
    return;
  }
  post({ kind: "ready" });
  port.on("message", (request: WorkerRequest) => {
    if (request.kind === "close") {
      void pg.close().finally(() => post({ kind: "closed" }));
      return;
    }
    const { id, sql, params, rowMode, rawDates } = request;
    pg.query(sql, params, { rowMode, ...(rawDates ? { parsers: RAW_DATE_PARSERS } : {}) }).then(
      (r) => post({ kind: "result", id, rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }),
      (err: unknown) => post({ kind: "error", id, error: serialize(err) }),
    );
  });
}

void run();
