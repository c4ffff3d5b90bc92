import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PollingLoop } from "./polling-loop.js";

// Fake timers: every wait below is the loop's own clock, not the machine's, so a busy machine (a CI
// run beside other work) cannot make a cycle late.
const loops: PollingLoop[] = [];
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  const stopping = Promise.all(loops.splice(0).map((l) => l.stop()));
  await vi.advanceTimersByTimeAsync(1_000);
  await stopping;
  vi.useRealTimers();
});

/** A loop whose cycles take `ms` and record how many run at once. */
function makeLoop(
  options: {
    ms?: number;
    pollMs?: number;
    kickDelayMs?: number;
    maxBackoffMs?: number;
    fail?: () => boolean;
    /** What a failing cycle throws (default: a plain error, a bug). */
    error?: () => Error;
  } = {},
) {
  const stats = { runs: 0, active: 0, maxActive: 0 };
  const lines: string[] = [];
  const logger = pino({ level: "warn" }, { write: (l: string) => lines.push(l) });
  const loop = new PollingLoop({
    pollMs: options.pollMs ?? 60_000,
    logger,
    failureMessage: "cycle failed",
    kickDelayMs: options.kickDelayMs,
    maxBackoffMs: options.maxBackoffMs,
    cycle: async () => {
      stats.runs++;
      stats.active++;
      stats.maxActive = Math.max(stats.maxActive, stats.active);
      await new Promise((r) => setTimeout(r, options.ms ?? 20));
      stats.active--;
      if (options.fail?.()) throw options.error?.() ?? new Error("boom");
    },
  });
  loops.push(loop);
  return { loop, stats, lines };
}

/** Lets `ms` of the loop's (fake) time pass, running every timer and promise due meanwhile. */
const settle = (ms = 150) => vi.advanceTimersByTimeAsync(ms);

describe("PollingLoop", () => {
  it("runs a first cycle on start, and kicks during a cycle coalesce into one more", async () => {
    const { loop, stats } = makeLoop();
    expect(loop.start()).toBe(true);
    expect(loop.start()).toBe(false);
    await settle(5); // the first cycle is running now
    loop.kick();
    loop.kick();
    loop.kick();
    await settle();
    expect(stats.runs).toBe(2);
    expect(stats.maxActive).toBe(1);
  });

  it("with a kick delay, a burst of kicks spread over the delay gets one cycle, started after it", async () => {
    const { loop, stats } = makeLoop({ ms: 1, kickDelayMs: 60 });
    loop.start();
    await settle(30); // the first cycle (never delayed) is over
    expect(stats.runs).toBe(1);
    for (let i = 0; i < 5; i++) {
      loop.kick();
      await settle(8);
    }
    expect(stats.runs).toBe(1); // 40 ms into the 60 ms wait
    await settle(80);
    expect(stats.runs).toBe(2);
  });

  it("polls when nobody kicks", async () => {
    const { loop, stats } = makeLoop({ ms: 1, pollMs: 30 });
    loop.start();
    await settle(200);
    expect(stats.runs).toBeGreaterThanOrEqual(3);
  });

  it("logs a failing cycle and keeps going", async () => {
    let fails = 1;
    const { loop, stats, lines } = makeLoop({ ms: 1, pollMs: 20, fail: () => fails-- > 0 });
    loop.start();
    await settle(150);
    expect(lines.join("")).toContain("cycle failed");
    expect(stats.runs).toBeGreaterThan(1);
  });

  it("backs off while cycles keep failing (an outage is not a tight error loop), and polls at its pace again after a success", async () => {
    let failing = true;
    const { loop, stats, lines } = makeLoop({
      ms: 1,
      pollMs: 20,
      maxBackoffMs: 160,
      fail: () => failing,
    });
    loop.start();
    await settle(600);
    // Steady polling would be ~30 cycles; doubling waits (40, 80, 160, 160 ms) allow about 5.
    expect(stats.runs).toBeGreaterThanOrEqual(3);
    expect(stats.runs).toBeLessThanOrEqual(7);
    expect(lines.length).toBe(stats.runs);
    failing = false;
    await settle(400); // the wait in progress (at most 160 ms), then 20 ms polls
    const recovered = stats.runs;
    await settle(200);
    expect(stats.runs - recovered).toBeGreaterThanOrEqual(5);
  });

  it("logs a database outage once when it begins and once when it ends, without a stack, not per cycle", async () => {
    let failing = true;
    const { loop, stats, lines } = makeLoop({
      ms: 1,
      pollMs: 10,
      maxBackoffMs: 20,
      fail: () => failing,
      error: () =>
        Object.assign(
          new Error("Failed query: select 1", {
            cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
          }),
        ),
    });
    loop.start();
    await settle(300);
    expect(stats.runs).toBeGreaterThan(5);
    failing = false;
    await settle(100);
    const logged = lines.map(
      (l) => JSON.parse(l) as { level: number; msg: string; reason?: string; stack?: unknown },
    );
    expect(logged.map((l) => l.msg)).toEqual([
      "cycle failed: the database or cache store is out of reach; retrying quietly until it is back",
      "cycle failed: resumed, the outage is over",
    ]);
    expect(logged[0]?.reason).toBe("connect ECONNREFUSED 127.0.0.1:5432");
    expect(JSON.stringify(logged)).not.toContain("stack");
  });

  it("a kick runs a cycle at once even while backing off", async () => {
    const { loop, stats } = makeLoop({ ms: 1, pollMs: 20, maxBackoffMs: 60_000, fail: () => true });
    loop.start();
    await settle(400); // several failures: the next poll is seconds away
    const before = stats.runs;
    loop.kick();
    await settle(30);
    expect(stats.runs).toBe(before + 1);
  });

  it("stop waits for the cycle in flight and ends polling; a stopped loop can start again", async () => {
    const { loop, stats } = makeLoop({ ms: 50, pollMs: 10 });
    loop.start();
    await settle(10);
    const stopping = loop.stop();
    await settle(50); // the cycle in flight ends
    await stopping;
    expect(stats.active).toBe(0);
    expect(loop.isStopped).toBe(true);
    const after = stats.runs;
    loop.kick();
    await settle(100);
    expect(stats.runs).toBe(after);
    expect(loop.start()).toBe(true);
    await settle(100);
    expect(stats.runs).toBeGreaterThan(after);
  });

  it("runs exclusive work after the cycle in flight, never beside it", async () => {
    const { loop, stats } = makeLoop({ ms: 40 });
    loop.start();
    const order: string[] = [];
    const exclusive = loop.runExclusive(async () => {
      order.push(`exclusive while ${stats.active} active`);
      return 42;
    });
    await settle(40); // the cycle in flight ends
    expect(await exclusive).toBe(42);
    expect(order).toEqual(["exclusive while 0 active"]);
    await expect(loop.runExclusive(async () => Promise.reject(new Error("no")))).rejects.toThrow("no");
  });
});
