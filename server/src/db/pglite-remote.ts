import type { Worker } from "node:worker_threads";
import type { PGlite } from "@electric-sql/pglite";
import type { WorkerReply, WorkerRequest } from "./pglite-protocol.js";
import { revive, spawn } from "./pglite-thread.js";
import { type DatabaseReachability, isStorageFailure, storageFailure } from "./reachability.js";
import { freeBytes, LOW_FREE_BYTES } from "./storage.js";

/**
 * A query running this long after the disk refused one of PGlite's writes (or on a disk with less than
 * LOW_FREE_BYTES free) is taken for PGlite stuck on a failed WAL write (it spins in XLogFlush for good,
 * also once the disk has room again): the instance is ended and opened again.
 */
const STALL_ON_FULL_DISK_MS = 2_500;
/** ... and at least this long after the refused write was seen (PostgreSQL fails a query at once when it can). */
const STALL_AFTER_FAILED_WRITE_MS = 1_000;
/**
 * PGlite runs PostgreSQL in single-user mode: no checkpointer process, and no checkpoint ever starts
 * by itself (max_wal_size is not acted on: pg_wal grew by ~80 MB per 10,000 alerts and was never
 * recycled). So the server checkpoints it: every CHECKPOINT_CHECK_MS it asks how much WAL was written
 * since the last checkpoint, and past CHECKPOINT_WAL_BYTES it runs CHECKPOINT, after which PostgreSQL
 * removes or recycles the segments before it (keeping min_wal_size, pglite-worker.mjs). That bounds
 * pg_wal and what a recovery after a kill has to replay (bench/README.md, "The embedded database on
 * small disks").
 */
const CHECKPOINT_CHECK_MS = 2_000;
const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024;

/** How long a ping may wait for the thread (a statement running holds it). */
const PING_TIMEOUT_MS = 2_000;
/** How often a stuck instance is looked for, and a replacement tried while there is no room. */
const WATCH_MS = 500;
const REOPEN_RETRY_MS = 2_000;
const CLOSE_TIMEOUT_MS = 5_000;

const STORAGE_MESSAGE =
  "The server cannot write to its database: its disk is full or read-only. Please try again later.";

type Pending = {
  resolve: (r: unknown) => void;
  reject: (e: Error) => void;
  startedAt: number;
};
type QueryOptions = { rowMode?: "array" | "object"; parsers?: unknown };
type Queryable = Pick<PGlite, "query">;

/** The instance ended (SQLSTATE 57P02, crash shutdown): requests get 503 until it is open again. */
function crashed(message: string): Error {
  return Object.assign(new Error(message), { code: "57P02" });
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
  private readonly checkpoints: NodeJS.Timeout;
  private checkpointing = false;
  private readonly pings = new Map<number, (up: boolean) => void>();
  /** The worker threads' count of writes the disk refused (pglite-worker.mjs), readable while one is busy. */
  private readonly failedWrites: Int32Array;
  /** When the count last went up (0: never), as this thread saw it. */
  private failedWriteSeenAt = 0;
  private failedWritesSeen = 0;
  /** The count when a query last succeeded: a refused write since, and PGlite may be stuck on it. */
  private failedWritesAtLastSuccess = 0;
  /** Refused WAL writes ([1]) the instance in use has already been replaced for. */
  private walFailuresHandled = 0;

  private constructor(
    private readonly dir: string,
    private readonly reachability: DatabaseReachability,
    worker: Worker,
    private readonly failures: SharedArrayBuffer,
  ) {
    this.failedWrites = new Int32Array(failures);
    this.attach(worker);
    this.watch = setInterval(() => this.lookForStall(), WATCH_MS);
    this.watch.unref();
    this.checkpoints = setInterval(() => void this.checkpointIfDue(), CHECKPOINT_CHECK_MS);
    this.checkpoints.unref();
    reachability.watchStorage(() => {
      const free = freeBytes(dir);
      return { writable: this.worker !== null && (free === null || free >= LOW_FREE_BYTES), freeBytes: free };
    });
  }

  static async open(dir: string, reachability: DatabaseReachability): Promise<EmbeddedDatabase> {
    const failures = new SharedArrayBuffer(8);
    return new EmbeddedDatabase(dir, reachability, await spawn(dir, failures), failures);
  }

  /**
   * Whether the database answers, without waiting behind the queries queued for it (health's ping):
   * the thread answers between two statements, so this waits for at most the one running. False when
   * the instance was ended (stuck on a full disk) and not yet opened again, or no answer in 2 s.
   */
  ping(): Promise<boolean> {
    const worker = this.worker;
    if (!worker) return Promise.resolve(false);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pings.delete(id);
        resolve(false);
      }, PING_TIMEOUT_MS);
      this.pings.set(id, (up) => {
        clearTimeout(timer);
        resolve(up);
      });
      worker.postMessage({ kind: "ping", id } satisfies WorkerRequest);
    });
  }

  query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<{ rows: T[] }> {
    return this.exclusive(() => this.send(sql, params, options)) as Promise<{ rows: T[] }>;
  }

  /** PGlite's transaction: BEGIN, the callback's queries, COMMIT (ROLLBACK when it throws), nothing else in between. */
  transaction<T>(run: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      // Every statement of a transaction goes to the instance that began it: one replaced meanwhile
      // (stuck, PANIC) took the transaction with it, and the rest must fail, not run on its own on
      // the new instance and commit half the work.
      const began = this.worker;
      await this.send("BEGIN", [], {});
      const tx = {
        query: (sql: string, params?: unknown[], options?: QueryOptions) =>
          this.send(sql, params ?? [], options ?? {}, began),
      };
      try {
        const result = await run(tx as unknown as Queryable);
        await this.send("COMMIT", [], {}, began);
        return result;
      } catch (err) {
        await this.send("ROLLBACK", [], {}, began).catch(() => {});
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.watch);
    clearInterval(this.checkpoints);
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

  /** Checkpoints once enough WAL was written since the last one (see CHECKPOINT_WAL_BYTES). */
  private async checkpointIfDue(): Promise<void> {
    if (this.checkpointing || this.closing || !this.worker) return;
    this.checkpointing = true;
    try {
      const { rows } = await this.query<{ bytes: number }>(
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()",
      );
      if ((rows[0]?.bytes ?? 0) >= CHECKPOINT_WAL_BYTES) await this.query("CHECKPOINT");
    } catch {
      // The database is down or its disk full: the stall watch and the next try deal with it.
    } finally {
      this.checkpointing = false;
    }
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.lock.then(run, run);
    this.lock = result.catch(() => {});
    return result;
  }

  private send(sql: string, params: unknown[], options: QueryOptions, on?: Worker | null): Promise<unknown> {
    const worker = this.worker;
    if (!worker || (on !== undefined && on !== worker))
      return Promise.reject(storageFailure(this.closing ? "The database is closed." : STORAGE_MESSAGE));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve,
        reject,
        startedAt: Date.now(),
      });
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
      if (reply.kind === "pong") {
        const answer = this.pings.get(reply.id);
        this.pings.delete(reply.id);
        answer?.(!reply.closed && this.worker === worker);
        return;
      }
      if (reply.kind !== "result" && reply.kind !== "error") return;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.kind === "result") {
        this.failedWritesAtLastSuccess = Atomics.load(this.failedWrites, 0);
        waiting.resolve({ rows: reply.rows, fields: reply.fields, affectedRows: reply.affectedRows });
        return;
      }
      const error = revive(reply.error);
      waiting.reject(error);
      // A PANIC ends a PostgreSQL backend; PGlite's carries on, answering every later query with
      // another (seen after a WAL write the disk refused: "cannot drop active portal"). Replace it.
      if (reply.error.fields.severity === "PANIC" && this.worker === worker) this.panicked(error);
    });
    worker.once("exit", (code) => {
      if (this.worker !== worker || this.closing) return;
      this.lost(crashed(`the embedded database's thread ended unexpectedly (${code})`));
    });
    worker.on("error", () => {});
  }

  /**
   * A query still running a few seconds after the disk refused one of PGlite's writes, or while the
   * disk is (nearly) full, means PGlite is stuck on a failed WAL write: end it and open anew. The
   * refused write is counted by the thread itself, so a disk that had room again a moment later (a
   * log rotated, a temp file removed) is caught too. With room on the disk and no refused write a
   * long query is left alone, whatever its length (a migration or a search over millions of alerts
   * may legitimately take minutes).
   */
  private lookForStall(): void {
    // A WAL write the disk refused: this instance is broken for good, whatever it answers now.
    const walFailed = Atomics.load(this.failedWrites, 1);
    if (walFailed > this.walFailuresHandled && this.worker) {
      this.walFailuresHandled = walFailed;
      this.lost(
        storageFailure("the disk refused a write-ahead-log write: the embedded database is opened again"),
      );
      return;
    }
    const failed = Atomics.load(this.failedWrites, 0);
    if (failed !== this.failedWritesSeen) {
      this.failedWritesSeen = failed;
      this.failedWriteSeenAt = Date.now();
    }
    if (!this.worker || this.pending.size === 0) return;
    const oldest = [...this.pending.values()].reduce((a, b) => (a.startedAt <= b.startedAt ? a : b));
    const now = Date.now();
    const running = now - oldest.startedAt;
    if (running < STALL_ON_FULL_DISK_MS) return;
    // The refused write need not be this query's: after a failed WAL write PGlite answers that query
    // with an error and then hangs on the next one (seen with a disk that had room again 0.3 s later).
    const refusedWrite =
      failed > this.failedWritesAtLastSuccess && now - this.failedWriteSeenAt >= STALL_AFTER_FAILED_WRITE_MS;
    const free = freeBytes(this.dir);
    const diskFull = free !== null && free < LOW_FREE_BYTES;
    if (!refusedWrite && !diskFull) return;
    this.lost(
      storageFailure(
        `a query stuck for ${running} ms ${refusedWrite ? "after the disk refused a write" : `with ${free} bytes free`}: the embedded database cannot write (disk full)`,
      ),
    );
  }

  private panicked(error: Error): void {
    const refusedWrite = Atomics.load(this.failedWrites, 0) > this.failedWritesAtLastSuccess;
    this.lost(
      refusedWrite
        ? storageFailure(`the embedded database panicked after the disk refused a write: ${error.message}`)
        : crashed(`the embedded database panicked: ${error.message}`),
    );
  }

  private lost(reason: Error): void {
    const worker = this.worker;
    this.worker = null;
    if (worker) void worker.terminate();
    if (isStorageFailure(reason)) {
      this.reachability.storageFailed(reason);
      this.failPending(storageFailure(STORAGE_MESSAGE));
    } else {
      this.reachability.failed(reason);
      this.failPending(reason);
    }
    this.scheduleReopen(0);
  }

  private failPending(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    for (const answer of this.pings.values()) answer(false);
    this.pings.clear();
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
      const worker = await spawn(this.dir, this.failures);
      if (this.closing) {
        await worker.terminate();
        return;
      }
      this.failedWritesAtLastSuccess = Atomics.load(this.failedWrites, 0);
      // One refused while this instance opened (recovery writes the WAL too) makes it no better.
      if (Atomics.load(this.failedWrites, 1) > this.walFailuresHandled) {
        this.walFailuresHandled = Atomics.load(this.failedWrites, 1);
        await worker.terminate();
        return this.scheduleReopen(REOPEN_RETRY_MS);
      }
      this.attach(worker);
      this.reachability.storageWritable();
      this.reachability.answered();
    } catch {
      this.scheduleReopen(REOPEN_RETRY_MS);
    }
  }
}
