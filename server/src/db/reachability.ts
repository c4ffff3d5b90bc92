import type { Logger } from "pino";

/** Marks an error raised while opening a connection: whatever its code, the database could not be reached. */
const CONNECT_FAILED = Symbol("turnout.connectFailed");

/** Tags an error from opening a connection (refused, not accepting connections, bad password, timeout). */
export function markConnectFailure(error: unknown): void {
  if (error && typeof error === "object") (error as Record<symbol, boolean>)[CONNECT_FAILED] = true;
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
 * A query the database answered with an error is not one.
 */
export function isConnectionFailure(error: unknown): boolean {
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

/** The innermost code of a connection failure (SQLSTATE or socket error), for the log. */
function failureCode(error: unknown): string | null {
  let code: string | null = null;
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === "string") code = c;
    e = (e as { cause?: unknown }).cause;
  }
  return code;
}

/**
 * Whether the database is reachable, as the connection pool last saw it: an outage is logged once when
 * it begins ('database unreachable') and once when it ends ('database reachable again'), however many
 * requests and background cycles fail in between.
 */
export class DatabaseReachability {
  private down = false;
  private downSince = 0;
  private logger: Logger | null = null;

  /** Where the two lines go; the server's logger, set once it exists (the database opens first). */
  useLogger(logger: Logger): void {
    this.logger = logger;
  }

  /** False from a connection failure until a connection is opened again. */
  get reachable(): boolean {
    return !this.down;
  }

  /** Records a failure; only one that means the database is out of reach starts an outage. */
  failed(error: unknown): void {
    if (this.down || !isConnectionFailure(error)) return;
    this.down = true;
    this.downSince = Date.now();
    const message = error instanceof Error ? error.message.slice(0, 200) : String(error).slice(0, 200);
    this.logger?.error(
      { code: failureCode(error), reason: message },
      "database unreachable: requests are answered 503 until it is back",
    );
  }

  /** Records that the database answered (a connection opened). */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.logger?.warn({ downMs: Date.now() - this.downSince }, "database reachable again");
  }
}
