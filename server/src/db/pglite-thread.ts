// Starting the embedded database's thread (pglite-worker.mjs), and its errors turned back into Errors.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { serverRoot } from "../paths.js";
import type { SerializedError, WorkerReply } from "./pglite-protocol.js";

/** Opening includes WAL recovery after a stuck instance was ended. */
const OPEN_TIMEOUT_MS = 60_000;

/** PostgreSQL's error fields back on an Error, as PGlite's own errors carry them (code, detail, hint, ...). */
export function revive(error: SerializedError): Error {
  const e = new Error(error.message);
  e.name = error.name;
  Object.assign(e, error.fields);
  return e;
}

/**
 * The database thread's young generation (V8's nursery for new objects), in MB. Answering searches at
 * 1,000,000 alerts, V8's default let it grow to a peak ~70 MB above this (bench/results/pglite-memory.md,
 * 2026-12-07), with requests no faster and ingest the same. The server's own thread keeps the default:
 * a smaller one there slowed the live channel's bursts (2026-12-07, the same file).
 */
export const DATABASE_THREAD_YOUNG_GENERATION_MB = 12;

/** The thread's script: plain JavaScript, so it needs no TypeScript loader (and its memory). */
const WORKER_URL = pathToFileURL(path.join(serverRoot, "src/db/pglite-worker.mjs"));

export function spawn(dir: string, failures: SharedArrayBuffer): Promise<Worker> {
  return new Promise((resolve, reject) => {
    // execArgv [] : the server's own flags (`--import tsx`) would load the TypeScript loader here too.
    const worker = new Worker(WORKER_URL, {
      workerData: { dir, failures },
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: DATABASE_THREAD_YOUNG_GENERATION_MB },
    });
    let settled = false;
    const timer = setTimeout(
      () => fail(new Error("the embedded database did not open in time")),
      OPEN_TIMEOUT_MS,
    );
    // Listeners are left in place once settled (removing a worker's listeners can stop its port).
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      reject(err);
    };
    worker.once("message", (reply: WorkerReply) => {
      if (reply.kind === "open-failed") return fail(revive(reply.error));
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(worker);
    });
    worker.once("error", fail);
    worker.once("exit", (code) =>
      fail(new Error(`the embedded database's thread ended (${code}) while opening`)),
    );
  });
}
