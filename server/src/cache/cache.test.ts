import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blackHole, type PrivateRedis, privateRedis, redisServerPath } from "../../test/redis-faults.js";
import { freePort } from "../../test/server-process.js";
import { type Cache, CacheUnavailableError, openCache } from "./cache.js";

/** A logger whose lines are kept, to count what an outage logs. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

const timed = async <T>(work: () => Promise<T>) => {
  const t = Date.now();
  const result = await work().then(
    (value) => ({ value, error: null as unknown }),
    (error: unknown) => ({ value: null, error }),
  );
  return { ...result, ms: Date.now() - t };
};

describe("the cache store when Redis does not answer", () => {
  it("starts without a Redis that refuses connections, and fails each call at once with a 503 error", async () => {
    const cache = await openCache(`redis://127.0.0.1:${await freePort()}`, "t:");
    try {
      expect(cache.state()).toBe("down");
      const inc = await timed(() => cache.increment("k", 60));
      expect(inc.error).toBeInstanceOf(CacheUnavailableError);
      expect(inc.error).toMatchObject({ status: 503, extra: { retryAfter: 5 } });
      expect(inc.ms).toBeLessThan(200);
      const calls: Array<() => Promise<unknown>> = [
        () => cache.get("k"),
        () => cache.set("k", "v", 5),
        () => cache.del("k"),
      ];
      for (const call of calls) expect((await timed(call)).error).toBeInstanceOf(CacheUnavailableError);
      expect(await cache.ping()).toBe(false);
      expect(await cache.info()).toBeNull();
      // A caller that asked to keep serving counts in this process meanwhile.
      expect(await cache.increment("local", 60, { whenDown: "count-locally" })).toEqual({
        count: 1,
        ttlSeconds: 60,
      });
      expect((await cache.increment("local", 60, { whenDown: "count-locally" })).count).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it("bounds every call on a Redis that accepts connections and never answers", async () => {
    const hole = await blackHole();
    const t = Date.now();
    const cache = await openCache(hole.url, "t:");
    try {
      expect(Date.now() - t).toBeLessThan(2_500); // the start waits a moment, then serves without it
      const calls = await Promise.all([
        timed(() => cache.increment("k", 60)),
        timed(() => cache.get("k")),
        timed(() => cache.ping()),
        timed(() => cache.info()),
      ]);
      for (const c of calls) expect(c.ms).toBeLessThan(1_500);
      expect(calls[0]?.error).toBeInstanceOf(CacheUnavailableError);
      expect(calls[1]?.error).toBeInstanceOf(CacheUnavailableError);
      expect(calls[2]?.value).toBe(false);
      expect(calls[3]?.value).toBeNull();
    } finally {
      await cache.close();
      await hole.close();
    }
  });
});

describe.skipIf(!redisServerPath)("the cache store through a Redis outage (a private redis-server)", () => {
  let redis: PrivateRedis;
  let cache: Cache;
  const log = capturingLogger();
  beforeAll(async () => {
    redis = await privateRedis();
    cache = await openCache(redis.url, "t:", log.logger);
  });
  afterAll(async () => {
    await cache?.close();
    await redis?.stop();
  });

  it("serves, refuses with 503 while Redis is stopped, serves again when it is back, and logs the outage twice", async () => {
    expect(cache.state()).toBe("up");
    expect((await cache.increment("c", 60)).count).toBe(1);
    expect(await cache.ping()).toBe(true);

    await redis.stop();
    for (let i = 0; i < 20; i++) {
      const r = await timed(() => cache.increment("c", 60));
      expect(r.error).toBeInstanceOf(CacheUnavailableError);
      expect(r.ms).toBeLessThan(1_200);
    }
    expect(cache.state()).toBe("down");
    expect(await cache.ping()).toBe(false);

    await redis.start();
    const deadline = Date.now() + 5_000;
    while (cache.state() !== "up" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(cache.state()).toBe("up");
    // The restarted Redis kept nothing (no persistence): counting starts again.
    expect((await cache.increment("c", 60)).count).toBe(1);

    const outage = log.lines.filter((l) => l.msg.includes("Redis"));
    expect(outage.map((l) => l.msg)).toEqual([
      "cache store: Redis unreachable; serving without it until it is back",
      "cache store: Redis reachable again",
    ]);
  }, 20_000);
});
