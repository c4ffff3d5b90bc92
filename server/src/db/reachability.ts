import type { Logger } from "pino";

/** Marks an error raised while opening a connection: whatever its code, the database could not be reached. */
const CONNECT_FAILED = Symbol("turnout.connectFailed");

/** Tags an error from opening a connection (refused, not accepting connections, bad password, timeout). */
export function markConnectFailure(error: unknown): void {
  if (error && typeof error === "object") (error as Record<symbol, boolean>)[CONNECT_FAILED] = true;
}

/** Marks an error raised because the embedded database cannot write (its disk is full or read-only). */
const STORAGE_FAILED = Symbol("turnout.storageFailed");

/** An error for a query the embedded database cannot run now: its disk is full or read-only. */
export function storageFailure(message: string): Error {
  const error = new Error(message);
  (error as unknown as Record<symbol, boolean>)[STORAGE_FAILED] = true;
  return error;
}

/** The disk's words in PostgreSQL's and the file system's messages. */
const STORAGE_MESSAGES =
  /No space left on device|Read-only file system|Disk quota exceeded|\b(ENOSPC|EROFS|EDQUOT)\b/;

/**
 * True when an error (or one it wraps) means the database cannot write to its disk: SQLSTATE 53100
 * (disk full), 58030 (I/O error) naming a full or read-only disk, or the embedded database refusing
 * queries until its disk has room again.
 */
export function isStorageFailure(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const err = e as { code?: unknown; message?: unknown; cause?: unknown; [STORAGE_FAILED]?: boolean };
    if (err[STORAGE_FAILED] || err.code === "53100") return true;
    if (typeof err.message === "string" && STORAGE_MESSAGES.test(err.message)) return true;
    e = err.cause;
  }
  return false;
}

/** Socket-level failures: the server is down, restarting or out of reach. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * node-postgres says a connection died in words, not codes: the socket closed (a restart, a terminated
 * backend), a client already broken was used again, or the pool found no connection in time.
 */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^timeout exceeded when trying to connect/,
];

/**
 * True when an error (or one it wraps, e.g. Drizzle's failed-query error) means the database could not
 * be reached: a connection that could not be opened or was lost, a socket error, SQLSTATE 57P01/57P02
 * (administrator or crash shutdown), 57P03 (cannot connect now) or class 08 (connection exception).
 * A database that cannot write to its disk counts too (isStorageFailure): it cannot serve the request
 * now and will again, so the caller is answered 503 and nothing is logged per request.
 * A query the database answered with any other error is not one.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (isStorageFailure(error)) return true;
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const err = e as { code?: unknown; message?: unknown; cause?: unknown; [CONNECT_FAILED]?: boolean };
    if (err[CONNECT_FAILED]) return true;
    const code = typeof err.code === "string" ? err.code : "";
    if (NETWORK_CODES.has(code) || /^(57P0[123]|08[0-9A-Z]{3})$/.test(code)) return true;
    const message = typeof err.message === "string" ? err.message : "";
    if (CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true;
    e = err.cause;
  }
  return false;
}

/** The innermost code and message of a connection failure (the database's or the socket's), for the log. */
function innermost(error: unknown): { code: string | null; reason: string } {
  let code: string | null = null;
  let reason = String(error);
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code: c, message: m, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof c === "string") code = c;
    // Drizzle's failed-query message holds the query's parameters (message texts): only its cause's is kept.
    if (typeof m === "string") reason = m;
    e = cause;
  }
  return { code, reason: reason.slice(0, 200) };
}

/**
 * Failures this soon after the database came back belong to the same disruption (the other connections
 * of one restart dying a moment later): they are not announced as a new outage unless they go on.
 */
const SETTLE_MS = 2_000;

/**
 * Whether the database is reachable, as the connection pool last saw it: an outage is logged once when
 * it begins ('database unreachable') and once when it ends ('database reachable again'), however many
 * requests and background cycles fail in between.
 */
export class DatabaseReachability {
  private down = false;
  private downSince = 0;
  private announced = false;
  private upSince = Number.NEGATIVE_INFINITY;
  private logger: Logger | null = null;

  /** Where the two lines go; the server's logger, set once it exists (the database opens first). */
  useLogger(logger: Logger): void {
    this.logger = logger;
  }

  /** False from a connection failure until a connection is opened again. */
  get reachable(): boolean {
    return !this.down;
  }

  /** Records a failure; only one that means the database is out of reach starts (or continues) an outage. */
  failed(error: unknown): void {
    if (isStorageFailure(error)) {
      this.storageFailed(error);
      return;
    }
    if (!isConnectionFailure(error)) return;
    const now = Date.now();
    if (!this.down) {
      this.down = true;
      this.downSince = now;
    }
    // A straggler right after a recovery is announced only if failures are still coming a while later.
    if (this.announced || (now - this.upSince < SETTLE_MS && now - this.downSince < SETTLE_MS)) return;
    this.announced = true;
    this.logger?.error(innermost(error), "database unreachable: requests are answered 503 until it is back");
  }

  /** Records that the database answered (a connection opened). */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.upSince = Date.now();
    if (!this.announced) return;
    this.announced = false;
    this.logger?.warn({ downMs: this.upSince - this.downSince }, "database reachable again");
  }

  private storageFull = false;
  private storageFullSince = 0;
  private storageCheck: (() => StorageStatus) | null = null;

  /** Whether the database can write: the embedded database's check, or what the last failures said. */
  storage(): StorageStatus {
    const checked = this.storageCheck?.() ?? { writable: true };
    if (checked.writable && this.storageFull && Date.now() - this.storageFullSince > STORAGE_SETTLE_MS) {
      this.storageWritable();
    }
    return checked.writable && !this.storageFull ? checked : { ...checked, writable: false };
  }

  private pinger: (() => Promise<boolean>) | null = null;

  /** Set by the embedded database: a ping that does not wait behind the queries queued for it. */
  usePing(ping: () => Promise<boolean>): void {
    this.pinger = ping;
  }

  /** The engine's own ping, when it has one (pingDatabase uses it). */
  get ping(): (() => Promise<boolean>) | null {
    return this.pinger;
  }

  /** Set by the embedded database: how it sees its disk (free space, a stuck instance being replaced). */
  watchStorage(check: () => StorageStatus): void {
    this.storageCheck = check;
  }

  /** Records that a write failed for want of disk: logged once until the database can write again. */
  storageFailed(error: unknown): void {
    this.storageFullSince = Date.now();
    if (this.storageFull) return;
    this.storageFull = true;
    this.logger?.error(
      innermost(error),
      "database cannot write: its disk is full or read-only; writes are answered 503 until there is room",
    );
  }

  /** Records that the database can write again (room on its disk, or a re-opened instance). */
  storageWritable(): void {
    if (!this.storageFull) return;
    this.storageFull = false;
    this.logger?.warn({ downMs: Date.now() - this.storageFullSince }, "database can write again");
  }
}

/** A write failure this recent still counts, even when the disk shows room again (space freed and filled). */
const STORAGE_SETTLE_MS = 2_000;

export type StorageStatus = {
  writable: boolean;
  /** Free bytes on the disk of the embedded database; absent for PostgreSQL. */
  freeBytes?: number | null;
};
