import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { AppError } from "../errors.js";
import { REDIS_COMMAND_TIMEOUT_MS, RedisLink } from "./redis-link.js";

/**
 * The short-lived key-value store: Redis when configured, otherwise this process's memory.
 *
 * **When Redis is configured but down** (issue 29) nothing hangs and nothing crashes: every call
 * answers within about a second (REDIS_COMMAND_TIMEOUT_MS; at once while the connection is known to
 * be down) and fails with a `CacheUnavailableError`, an AppError the error handler sends as
 * `503 service_unavailable` with `Retry-After` (CACHE_RETRY_AFTER_SECONDS). So a limit that must hold
 * across every instance (sign-in and registration, SMS budgets) refuses rather than letting through
 * what it cannot count: per-instance counts would multiply an attacker's budget by the number of
 * instances and reset with each restart. A caller that prefers to keep serving asks for it:
 * `increment(key, ttl, { whenDown: "count-locally" })` counts in this process while Redis is down (the
 * System Monitor warns that limits are per instance then). Anything else a caller wants on failure it
 * catches itself (`CacheUnavailableError`).
 */
export type Cache = {
  kind: "redis" | "memory";
  /** `not_configured` (no REDIS_URL: the in-process store), `up`, or `down` (Redis configured, not answering). */
  state(): CacheState;
  /**
   * Increments a counter, starting its expiry on first use; returns the new value and seconds left.
   * Throws CacheUnavailableError while Redis is down, unless `whenDown` is "count-locally".
   */
  increment(
    key: string,
    ttlSeconds: number,
    options?: { whenDown?: "refuse" | "count-locally" },
  ): Promise<{ count: number; ttlSeconds: number }>;
  /** Throws CacheUnavailableError while Redis is down. */
  get(key: string): Promise<string | null>;
  /** Throws CacheUnavailableError while Redis is down. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Throws CacheUnavailableError while Redis is down. */
  del(key: string): Promise<void>;
  /** Whether the store answers; never takes longer than about half a second. */
  ping(): Promise<boolean>;
  /** Redis INFO as key/value pairs, or null for the in-process store or a Redis that does not answer. */
  info(): Promise<Record<string, string> | null>;
  /** Where outage lines go ("cache store: Redis unreachable ..." once, "... reachable again" once). */
  useLogger(logger: Logger): void;
  close(): Promise<void>;
  /** The Redis client (null in memory mode). */
  redis: Redis | null;
};

export type CacheState = "not_configured" | "up" | "down";

/** How long a caller refused for want of the cache store is asked to wait. */
export const CACHE_RETRY_AFTER_SECONDS = 5;

/** The cache store (Redis) did not answer: a 503 with Retry-After, never a 500. */
export class CacheUnavailableError extends AppError {
  constructor() {
    super(
      503,
      "service_unavailable",
      "This is temporarily unavailable (the server's cache store is not answering). Please try again in a few seconds.",
      { retryAfter: CACHE_RETRY_AFTER_SECONDS },
    );
    this.name = "CacheUnavailableError";
  }
}

/** How long health's ping waits: health answers within a second even with Redis hung. */
const PING_TIMEOUT_MS = 500;
/** How long start-up waits for Redis before serving without it. */
const START_WAIT_MS = 1_500;

/**
 * Opens Redis at `url` (keys under `prefix`), or an in-process store when `url` is null. A Redis that
 * does not answer within a moment does not stop the start: the server serves without it (see Cache)
 * and uses it once it is there.
 */
export async function openCache(url: string | null, prefix: string, logger?: Logger): Promise<Cache> {
  if (!url) return openMemoryCache();
  const cache = await openRedis(url, prefix, logger);
  await cache.link.ready(START_WAIT_MS);
  return cache;
}

type RedisCache = Cache & { link: RedisLink };

/** A Redis command's failure as the caller sees it: Redis's own reply errors pass, the rest is a 503. */
function unavailable(err: unknown): never {
  if ((err as { name?: unknown } | null)?.name === "ReplyError") throw err;
  throw new CacheUnavailableError();
}

async function openRedis(url: string, prefix: string, logger: Logger | undefined): Promise<RedisCache> {
  const link = new RedisLink(url, "cache store");
  if (logger) link.useLogger(logger);
  const redis = await link.connect("commands", prefix);
  // Counters kept here only while Redis is down, for callers that asked to count locally.
  const local = openMemoryCache();
  const withTimeout = async <T>(promise: Promise<T>, ms: number): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(reject, ms, new Error("timeout"));
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    kind: "redis",
    redis,
    link,
    state: () => (link.up ? "up" : "down"),
    async increment(key, ttlSeconds, options) {
      try {
        const [[incrErr, count], [ttlErr, ttl]] = (await redis.multi().incr(key).ttl(key).exec()) as [
          [Error | null, number],
          [Error | null, number],
        ];
        if (incrErr || ttlErr) throw incrErr ?? ttlErr;
        let left = ttl;
        if (ttl < 0) {
          await redis.expire(key, ttlSeconds);
          left = ttlSeconds;
        }
        return { count, ttlSeconds: left };
      } catch (err) {
        if (options?.whenDown === "count-locally") return local.increment(key, ttlSeconds);
        return unavailable(err);
      }
    },
    get: (key) => redis.get(key).catch(unavailable),
    async set(key, value, ttlSeconds) {
      await redis.set(key, value, "EX", Math.max(1, Math.ceil(ttlSeconds))).catch(unavailable);
    },
    async del(key) {
      await redis.del(key).catch(unavailable);
    },
    async ping() {
      if (redis.status !== "ready") return false;
      try {
        return (await withTimeout(redis.ping(), PING_TIMEOUT_MS)) === "PONG";
      } catch {
        return false;
      }
    },
    async info() {
      if (redis.status !== "ready") return null;
      try {
        return parseRedisInfo(await withTimeout(redis.info(), REDIS_COMMAND_TIMEOUT_MS));
      } catch {
        return null;
      }
    },
    useLogger: (logger) => link.useLogger(logger),
    async close() {
      await local.close();
      await link.close();
    },
  };
}

/** Parses the text of Redis INFO into a flat map. */
export function parseRedisInfo(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith("#")) continue;
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

function openMemoryCache(): Cache {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const e = entries.get(key);
    if (e && e.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, e] of entries) if (e.expiresAt <= now) entries.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    kind: "memory",
    redis: null,
    state: () => "not_configured",
    async increment(key, ttlSeconds) {
      const e = live(key);
      if (!e) {
        entries.set(key, { value: "1", expiresAt: Date.now() + ttlSeconds * 1000 });
        return { count: 1, ttlSeconds };
      }
      e.value = String(Number(e.value) + 1);
      return { count: Number(e.value), ttlSeconds: Math.ceil((e.expiresAt - Date.now()) / 1000) };
    },
    get: async (key) => live(key)?.value ?? null,
    async set(key, value, ttlSeconds) {
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async del(key) {
      entries.delete(key);
    },
    ping: async () => true,
    info: async () => null,
    useLogger: () => {},
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
