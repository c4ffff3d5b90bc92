import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { PGlite } from "@electric-sql/pglite";
import { serverRoot } from "../paths.js";
import type { SerializedError, WorkerReply, WorkerRequest } from "./pglite-protocol.js";
import { type DatabaseReachability, storageFailure } from "./reachability.js";
import { freeBytes, LOW_FREE_BYTES } from "./storage.js";

/**
 * A query running this long on a disk with less than LOW_FREE_BYTES free is taken for PGlite stuck on a
 * failed WAL write (it spins in XLogFlush for good): the instance is ended and opened again.
 */
const STALL_ON_FULL_DISK_MS = 2_500;
/** How often a stuck instance is looked for, and a replacement tried while there is no room. */
const WATCH_MS = 500;
const REOPEN_RETRY_MS = 2_000;
/** Opening includes WAL recovery after a stuck instance was ended. */
const OPEN_TIMEOUT_MS = 60_000;
const CLOSE_TIMEOUT_MS = 5_000;

const STORAGE_MESSAGE =
  "The server cannot write to its database: its disk is full or read-only. Please try again later.";

type Pending = { resolve: (r: unknown) => void; reject: (e: Error) => void; startedAt: number };
type QueryOptions = { rowMode?: "array" | "object"; parsers?: unknown };
type Queryable = Pick<PGlite, "query">;

/** PostgreSQL's error fields back on an Error, as PGlite's own errors carry them (code, detail, hint, ...). */
function revive(error: SerializedError): Error {
  const e = new Error(error.message);
  e.name = error.name;
  Object.assign(e, error.fields);
  return e;
}

/** The thread's script: plain JavaScript, so it needs no TypeScript loader (and its memory). */
const WORKER_URL = pathToFileURL(path.join(serverRoot, "src/db/pglite-worker.mjs"));

function spawn(dir: string): Promise<Worker> {
  return new Promise((resolve, reject) => {
    // execArgv [] : the server's own flags (`--import tsx`) would load the TypeScript loader here too.
    const worker = new Worker(WORKER_URL, { workerData: { dir }, execArgv: [] });
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

/**
 * Embedded PGlite on its own thread, with the `query` and `transaction` Drizzle uses. PGlite on a disk
 * that fills up can fail a WAL write and then spin for good inside the WebAssembly instance; on the
 * main thread that stops the whole server (no health, no SIGTERM). Here the server stays responsive:
 * a query stuck on a full disk is detected, the thread is ended, every waiting query fails as a
 * storage failure (503), and a new instance is opened on the same directory (WAL recovery) as soon
 * as the disk has room again.
 */
export class EmbeddedDatabase {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** PGlite runs one transaction at a time, and plain queries between them: this chain is that lock. */
  private lock: Promise<unknown> = Promise.resolve();
  private closing = false;
  private reopening: NodeJS.Timeout | null = null;
  private readonly watch: NodeJS.Timeout;

  private constructor(
    private readonly dir: string,
    private readonly reachability: DatabaseReachability,
    worker: Worker,
  ) {
    this.attach(worker);
    this.watch = setInterval(() => this.lookForStall(), WATCH_MS);
    this.watch.unref();
    reachability.watchStorage(() => {
      const free = freeBytes(dir);
      return { writable: this.worker !== null && (free === null || free >= LOW_FREE_BYTES), freeBytes: free };
    });
  }

  static async open(dir: string, reachability: DatabaseReachability): Promise<EmbeddedDatabase> {
    return new EmbeddedDatabase(dir, reachability, await spawn(dir));
  }

  query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<{ rows: T[] }> {
    return this.exclusive(() => this.send(sql, params, options)) as Promise<{ rows: T[] }>;
  }

  /** PGlite's transaction: BEGIN, the callback's queries, COMMIT (ROLLBACK when it throws), nothing else in between. */
  transaction<T>(run: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.send("BEGIN", [], {});
      const tx = {
        query: (sql: string, params?: unknown[], options?: QueryOptions) =>
          this.send(sql, params ?? [], options ?? {}),
      };
      try {
        const result = await run(tx as unknown as Queryable);
        await this.send("COMMIT", [], {});
        return result;
      } catch (err) {
        await this.send("ROLLBACK", [], {}).catch(() => {});
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.watch);
    if (this.reopening) clearTimeout(this.reopening);
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      worker.on("message", (reply: WorkerReply) => {
        if (reply.kind === "closed") {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    worker.postMessage({ kind: "close" } satisfies WorkerRequest);
    await closed;
    await worker.terminate();
    this.failPending(storageFailure("The database is closed."));
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.lock.then(run, run);
    this.lock = result.catch(() => {});
    return result;
  }

  private send(sql: string, params: unknown[], options: QueryOptions): Promise<unknown> {
    const worker = this.worker;
    if (!worker)
      return Promise.reject(storageFailure(this.closing ? "The database is closed." : STORAGE_MESSAGE));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, startedAt: Date.now() });
      worker.postMessage({
        kind: "query",
        id,
        sql,
        params,
        rowMode: options.rowMode ?? "object",
        rawDates: options.parsers !== undefined,
      } satisfies WorkerRequest);
    });
  }

  private attach(worker: Worker): void {
    this.worker = worker;
    worker.on("message", (reply: WorkerReply) => {
      if (reply.kind !== "result" && reply.kind !== "error") return;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.kind === "result")
        waiting.resolve({ rows: reply.rows, fields: reply.fields, affectedRows: reply.affectedRows });
      else waiting.reject(revive(reply.error));
    });
    worker.once("exit", (code) => {
      if (this.worker !== worker || this.closing) return;
      this.lost(new Error(`the embedded database's thread ended unexpectedly (${code})`));
    });
    worker.on("error", () => {});
  }

  /**
   * A query that has run a few seconds while the disk is (nearly) full means PGlite is stuck on a failed
   * WAL write: end it and open anew. With room on the disk a long query is left alone, whatever its
   * length (a migration or a search over millions of alerts may legitimately take minutes).
   */
  private lookForStall(): void {
    if (!this.worker || this.pending.size === 0) return;
    const oldest = Math.min(...[...this.pending.values()].map((p) => p.startedAt));
    const running = Date.now() - oldest;
    if (running < STALL_ON_FULL_DISK_MS) return;
    const free = freeBytes(this.dir);
    const diskFull = free !== null && free < LOW_FREE_BYTES;
    if (!diskFull) return;
    this.lost(
      storageFailure(
        `a query stuck for ${running} ms with ${free} bytes free: the embedded database cannot write (disk full)`,
      ),
    );
  }

  private lost(reason: Error): void {
    const worker = this.worker;
    this.worker = null;
    if (worker) void worker.terminate();
    this.reachability.storageFailed(reason);
    this.failPending(storageFailure(STORAGE_MESSAGE));
    this.scheduleReopen(0);
  }

  private failPending(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  private scheduleReopen(delay: number): void {
    if (this.closing || this.reopening) return;
    this.reopening = setTimeout(() => {
      this.reopening = null;
      void this.reopen();
    }, delay);
    this.reopening.unref();
  }

  /** Opens a new instance on the same directory once there is room (PGlite recovers from its WAL). */
  private async reopen(): Promise<void> {
    const free = freeBytes(this.dir);
    if (free !== null && free < LOW_FREE_BYTES) return this.scheduleReopen(REOPEN_RETRY_MS);
    try {
      const worker = await spawn(this.dir);
      if (this.closing) {
        await worker.terminate();
        return;
      }
      this.attach(worker);
      this.reachability.storageWritable();
    } catch {
      this.scheduleReopen(REOPEN_RETRY_MS);
    }
  }
}
