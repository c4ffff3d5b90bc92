import type { Redis, RedisOptions } from "ioredis";

/** What the link logs with: the server's logger (pino, or Fastify's view of it). */
type OutageLogger = {
  error: (details: object, message: string) => void;
  warn: (details: object, message: string) => void;
};

/**
 * Every Redis connection of the server (the cache store's, the live channel's publisher and
 * subscriber) is made here, so they share one failure mode (issue 29):
 *
 * - **Bounded.** A command answers or fails within REDIS_COMMAND_TIMEOUT_MS; while the connection is
 *   down a command fails at once (no offline queue, no retries), and a connection that stops answering
 *   is dropped after REDIS_SOCKET_TIMEOUT_MS and tried again (a capped backoff, for ever).
 * - **Handled.** Every command's promise gets a handler the moment it is sent, so a caller that drops
 *   it (the socket.io Redis adapter publishes without awaiting) cannot leave an unhandled rejection
 *   that would end the process. A caller that awaits still gets the rejection.
 * - **Told once.** An outage is logged when it starts and when it ends, not per command.
 *
 * The subscriber is the exception to "fail at once": its SUBSCRIBE commands wait in the offline queue
 * until Redis is there (at start too), and ioredis subscribes again after every reconnect.
 */

/** The longest a command may take before it fails (a Redis that accepts but does not answer). */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;
/** A connection with commands waiting and nothing read for this long is dropped and made again. */
export const REDIS_SOCKET_TIMEOUT_MS = 2_000;
/** How long opening a TCP connection may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** The longest wait between reconnection attempts. */
export const REDIS_RECONNECT_MAX_MS = 2_000;

/** How soon a reconnect whose confirming PING failed is confirmed again. */
const CONFIRM_RETRY_MS = 500;

/** ioredis options for a connection that sends commands, or for a subscriber. */
export function boundedRedisOptions(role: "commands" | "subscriber", keyPrefix?: string): RedisOptions {
  const subscriber = role === "subscriber";
  return {
    ...(keyPrefix ? { keyPrefix } : {}),
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: subscriber ? undefined : REDIS_COMMAND_TIMEOUT_MS,
    socketTimeout: REDIS_SOCKET_TIMEOUT_MS,
    // A command on a connection that is down fails now; one in flight when it drops is not resent.
    enableOfflineQueue: subscriber,
    maxRetriesPerRequest: subscriber ? null : 0,
    autoResubscribe: true,
    retryStrategy: (times) => Math.min(100 * times, REDIS_RECONNECT_MAX_MS),
  };
}

/** A reply Redis itself gave (WRONGTYPE, ...): the connection works, only that command failed. */
function isReplyError(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === "ReplyError";
}

type LinkEvents = {
  /** The link went down (a connection lost or failing). */
  down?: () => void;
  /** Every connection of the link is ready again after being down for `gapMs`. */
  up?: (gapMs: number) => void;
};

/**
 * The Redis connections of one part of the server (`name`: "cache store", "live channel"), watched
 * together: up while every one is ready, and one outage however many of them fail.
 */
export class RedisLink {
  private readonly clients: Redis[] = [];
  private downSince: number | null = null;
  private announced = false;
  private logger: OutageLogger | null = null;
  private closing = false;
  private readonly listeners: LinkEvents[] = [];

  constructor(
    private readonly url: string,
    private readonly name: string,
  ) {}

  /** Where the outage lines go. */
  useLogger(logger: OutageLogger): void {
    this.logger = logger;
  }

  /** Hears the link going down and coming back (the live channel re-reads after a gap). */
  on(events: LinkEvents): void {
    this.listeners.push(events);
  }

  /** True while every connection is ready and no command has failed since (see `down`). */
  get up(): boolean {
    return this.downSince === null && this.connected();
  }

  private connected(): boolean {
    return this.clients.length > 0 && this.clients.every((c) => c.status === "ready");
  }

  /** Milliseconds the link has been down, or null while it is up. */
  get downForMs(): number | null {
    return this.downSince === null ? null : Date.now() - this.downSince;
  }

  /** A new connection of this link (loaded only when Redis is configured: ioredis costs ~15 MB). */
  async connect(role: "commands" | "subscriber", keyPrefix?: string): Promise<Redis> {
    const { Redis } = await import("ioredis");
    const client = new Redis(this.url, boundedRedisOptions(role, keyPrefix));
    this.watch(client);
    return client;
  }

  /**
   * Resolves once every connection is ready, once one has failed, or after `ms`, whichever comes
   * first; true when ready. The start waits this long for Redis, no longer.
   */
  async ready(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.connected() && this.downSince === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    return this.up;
  }

  /** Closes every connection (QUIT, or a hard disconnect when that fails). */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryConfirm);
    await Promise.all(
      this.clients.map((c) =>
        c.status === "ready" ? c.quit().catch(() => c.disconnect()) : Promise.resolve(c.disconnect()),
      ),
    );
  }

  private watch(client: Redis): void {
    this.clients.push(client);
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((...args: Parameters<Redis["sendCommand"]>) => {
      const promise = send(...args) as Promise<unknown>;
      promise.then(
        () => this.maybeUp(),
        (err: unknown) => (isReplyError(err) ? this.maybeUp() : this.failed(err)),
      );
      return promise;
    }) as Redis["sendCommand"];
    // ioredis reconnects by itself; without a listener an 'error' event would end the process.
    client.on("error", (err) => this.failed(err));
    client.on("close", () => this.failed(new Error("connection closed")));
    client.on("ready", () => this.maybeUp());
  }

  private failed(error: unknown): void {
    if (this.closing) return;
    if (this.downSince === null) {
      this.downSince = Date.now();
      for (const l of this.listeners) l.down?.();
    }
    if (this.announced) return;
    this.announced = true;
    this.logger?.error(
      { reason: String((error as Error)?.message ?? error).slice(0, 200) },
      `${this.name}: Redis unreachable; serving without it until it is back`,
    );
  }

  private confirming = false;
  private retryConfirm: NodeJS.Timeout | undefined;

  /**
   * Every connection is ready again: confirmed with a PING on each before the link is up. On a
   * subscriber the PING follows the SUBSCRIBEs ioredis sends again on reconnecting, so its answer
   * means the subscriptions are in place: a screen told to read its feed again after a gap
   * (the live channel) then misses nothing published before it, on any instance.
   */
  private maybeUp(): void {
    if (this.closing || this.downSince === null || this.confirming || !this.connected()) return;
    this.confirming = true;
    void Promise.all(this.clients.map((c) => c.ping()))
      .then(
        () => {
          if (this.closing || this.downSince === null || !this.connected()) return;
          const gapMs = Date.now() - this.downSince;
          this.downSince = null;
          if (this.announced) this.logger?.warn({ downMs: gapMs }, `${this.name}: Redis reachable again`);
          this.announced = false;
          for (const l of this.listeners) l.up?.(gapMs);
        },
        // Not answered (a slow or still failing Redis): try again shortly, for ever while connected.
        () => {
          this.retryConfirm = setTimeout(() => this.maybeUp(), CONFIRM_RETRY_MS);
          this.retryConfirm.unref();
        },
      )
      .finally(() => {
        this.confirming = false;
      });
  }
}
