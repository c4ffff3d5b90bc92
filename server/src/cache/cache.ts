import type { Redis } from "ioredis";

/** The short-lived key-value store: Redis when configured, otherwise this process's memory. */
export type Cache = {
  kind: "redis" | "memory";
  /** Increments a counter, starting its expiry on first use; returns the new value and seconds left. */
  increment(key: string, ttlSeconds: number): Promise<{ count: number; ttlSeconds: number }>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  ping(): Promise<boolean>;
  /** Redis INFO as key/value pairs, or null for the in-process store. */
  info(): Promise<Record<string, string> | null>;
  close(): Promise<void>;
  /** The Redis client, for the socket.io adapter; null in memory mode. */
  redis: Redis | null;
};

/** Opens Redis at `url` (keys under `prefix`), or an in-process store when `url` is null. */
export async function openCache(url: string | null, prefix: string): Promise<Cache> {
  return url ? openRedis(url, prefix) : openMemoryCache();
}

async function openRedis(url: string, prefix: string): Promise<Cache> {
  // Loaded only when Redis is configured: the client costs a process without it ~15 MB.
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.on("error", () => {}); // reconnects by itself; health reports the state
  await redis.ping();
  return {
    kind: "redis",
    redis,
    async increment(key, ttlSeconds) {
      const [[, count], [, ttl]] = (await redis.multi().incr(key).ttl(key).exec()) as [
        [null, number],
        [null, number],
      ];
      let left = ttl;
      if (ttl < 0) {
        await redis.expire(key, ttlSeconds);
        left = ttlSeconds;
      }
      return { count, ttlSeconds: left };
    },
    get: (key) => redis.get(key),
    async set(key, value, ttlSeconds) {
      await redis.set(key, value, "EX", Math.max(1, Math.ceil(ttlSeconds)));
    },
    async del(key) {
      await redis.del(key);
    },
    async ping() {
      try {
        return (await redis.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    async info() {
      try {
        return parseRedisInfo(await redis.info());
      } catch {
        return null;
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
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
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
