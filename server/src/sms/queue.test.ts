import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import pino, { type Logger } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openTestDatabase } from "../../test/build-app.js";
import { killableDatabase } from "../../test/killable-database.js";
import type { Database, DatabaseHandle } from "../db/client.js";
import { smsQueue, systemLogs } from "../db/schema.js";
import { createOutboxProvider } from "./outbox-provider.js";
import { type SmsMessage, type SmsProvider, SmsSendError } from "./provider.js";
import { CODE_REMOVED_BODY, enqueueSms, retryDelaySeconds } from "./queue.js";
import { handleStuck, listQueue, retryAllFailed, retrySms, smsStats } from "./queue-admin.js";
import { SmsWorker } from "./worker.js";

const PHONE = "+61412345678";

type Outcome = "ok" | SmsSendError | Error;

/** A provider the test steers: each send takes the next scripted outcome (default: accepted). */
function fakeProvider() {
  const sent: SmsMessage[] = [];
  const calls: SmsMessage[] = [];
  const script: Outcome[] = [];
  let gate: Promise<void> | null = null;
  let delayMs = 0;
  const provider: SmsProvider & {
    sent: SmsMessage[];
    calls: SmsMessage[];
    next(...outcomes: Outcome[]): void;
    hold(): () => void;
    slow(ms: number): void;
  } = {
    name: "fake",
    sent,
    calls,
    next: (...outcomes) => script.push(...outcomes),
    hold() {
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = null;
        release();
      };
    },
    slow: (ms) => {
      delayMs = ms;
    },
    async send(message) {
      calls.push(message);
      if (gate) await gate;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const outcome = script.shift() ?? "ok";
      if (outcome !== "ok") throw outcome;
      sent.push(message);
      return { providerMessageId: `fake-${sent.length}` };
    },
  };
  return provider;
}

function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: "debug" }, { write: (l: string) => lines.push(l) }), lines };
}

describe("SMS queue", () => {
  let handle: DatabaseHandle;
  let db: Database;
  let workers: SmsWorker[];

  beforeAll(async () => {
    handle = await openTestDatabase();
    db = handle.db;
  });
  afterAll(() => handle.close());
  beforeEach(async () => {
    workers = [];
    await db.delete(smsQueue);
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  function worker(provider: SmsProvider, options: Partial<ConstructorParameters<typeof SmsWorker>[0]> = {}) {
    const w = new SmsWorker({ db, provider, logger: captureLogger().logger, pollMs: 60_000, ...options });
    workers.push(w);
    return w;
  }

  async function row(id: number) {
    const [r] = await db.select().from(smsQueue).where(eq(smsQueue.id, id));
    return r!;
  }

  /** Seconds from now until the row is due (computed by the database, whose clock the queue uses). */
  async function secondsUntilDue(id: number): Promise<number> {
    const [r] = await db
      .select({ wait: sql<number>`extract(epoch from ${smsQueue.nextAttemptAt} - now())`.mapWith(Number) })
      .from(smsQueue)
      .where(eq(smsQueue.id, id));
    return r!.wait;
  }

  async function makeDue(id: number) {
    await db
      .update(smsQueue)
      .set({ nextAttemptAt: sql`now() - interval '1 second'` })
      .where(eq(smsQueue.id, id));
  }

  describe("enqueueSms", () => {
    it("inserts a pending message that is due now", async () => {
      const { id } = await enqueueSms(db, { to: PHONE, body: "Code 123456", kind: "otp" });

      const r = await row(id);
      expect(r).toMatchObject({ toPhone: PHONE, body: "Code 123456", kind: "otp", status: "pending" });
      expect(r.attempts).toBe(0);
      expect(r.userId).toBeNull();
      expect(await secondsUntilDue(id)).toBeLessThanOrEqual(0);
    });

    it("joins the caller's transaction: a rolled-back transaction leaves no message", async () => {
      const committed = await db.transaction((tx) =>
        enqueueSms(tx, { to: PHONE, body: "a", kind: "notice" }),
      );
      await expect(
        db.transaction(async (tx) => {
          await enqueueSms(tx, { to: PHONE, body: "b", kind: "notice" });
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");

      const rows = await db.select().from(smsQueue);
      expect(rows.map((r) => r.id)).toEqual([committed.id]);
    });
  });

  describe("SmsWorker", () => {
    it("writes a queued message to the outbox file as one JSON line and marks it sent", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "turnout-sms-"));
      try {
        const file = path.join(dir, "sms-outbox.jsonl");
        const w = worker(createOutboxProvider(file, captureLogger().logger));
        const { id } = await enqueueSms(db, { to: PHONE, body: "Your code is 654321", kind: "otp" });

        expect(await w.runOnce()).toBe(1);

        const lines = readFileSync(file, "utf8").trim().split("\n");
        expect(lines).toHaveLength(1);
        const line = JSON.parse(lines[0]!);
        expect(line).toMatchObject({ to: PHONE, body: "Your code is 654321" });
        expect(Number.isNaN(Date.parse(line.at))).toBe(false);
        const r = await row(id);
        expect(r).toMatchObject({ status: "sent", attempts: 1, lastError: null, lockedAt: null });
        expect(r.sentAt).toBeInstanceOf(Date);
        // The outbox (development only) keeps the code; the queue row does not.
        expect(r.body).toBe(CODE_REMOVED_BODY);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("records the provider's message id", async () => {
      const provider = fakeProvider();
      const { id } = await enqueueSms(db, { to: PHONE, body: "hello", kind: "notice" });

      await worker(provider).runOnce();

      expect((await row(id)).providerMessageId).toBe("fake-1");
    });

    it("retries a retryable failure later with growing backoff, then sends it", async () => {
      const provider = fakeProvider();
      const w = worker(provider);
      provider.next(
        new SmsSendError("gateway busy", { retryable: true }),
        new SmsSendError("gateway busy", { retryable: true }),
      );
      const { id } = await enqueueSms(db, { to: PHONE, body: "Code 111111", kind: "otp" });

      expect(await w.runOnce()).toBe(0);
      let r = await row(id);
      expect(r).toMatchObject({ status: "pending", attempts: 1, lockedAt: null });
      expect(r.lastError).toContain("gateway busy");
      expect(await secondsUntilDue(id)).toBeGreaterThan(3);
      expect(await secondsUntilDue(id)).toBeLessThanOrEqual(5);

      // Not due yet: a cycle leaves it alone.
      expect(await w.runOnce()).toBe(0);
      expect(provider.calls).toHaveLength(1);

      await makeDue(id);
      expect(await w.runOnce()).toBe(0);
      expect((await row(id)).attempts).toBe(2);
      expect(await secondsUntilDue(id)).toBeGreaterThan(8);
      expect(await secondsUntilDue(id)).toBeLessThanOrEqual(10);

      await makeDue(id);
      expect(await w.runOnce()).toBe(1);
      r = await row(id);
      expect(r).toMatchObject({ status: "sent", attempts: 3, lastError: null });
      expect(provider.sent).toHaveLength(1);
    });

    it("waits as long as the provider asks when it gives a retry-after time", async () => {
      const provider = fakeProvider();
      provider.next(new SmsSendError("rate limited", { retryable: true, retryAfterSeconds: 120 }));
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "notice" });

      await worker(provider).runOnce();

      expect(await secondsUntilDue(id)).toBeGreaterThan(115);
      expect(await secondsUntilDue(id)).toBeLessThanOrEqual(120);
    });

    it("doubles the wait from 5 seconds and caps it at 10 minutes", () => {
      expect([1, 2, 3, 4, 5, 7, 8, 20].map((n) => retryDelaySeconds(n))).toEqual([
        5, 10, 20, 40, 80, 320, 600, 600,
      ]);
      expect(retryDelaySeconds(1, 30)).toBe(30);
    });

    it("removes the code from sign-in and activation SMS once sent, and keeps other bodies", async () => {
      const provider = fakeProvider();
      const otp = await enqueueSms(db, {
        to: PHONE,
        body: "Turnout: your sign-in code is 246810.",
        kind: "otp",
      });
      const activation = await enqueueSms(db, {
        to: PHONE,
        body: "Turnout: your activation code is 135791.",
        kind: "activation",
      });
      const rule = await enqueueSms(db, { to: PHONE, body: "EMERGENCY CFA: STRUC1 SHED FIRE", kind: "rule" });

      expect(await worker(provider).runOnce()).toBe(3);

      expect(provider.sent.map((m) => m.body).join(" ")).toContain("246810");
      const rows = await db.select().from(smsQueue);
      expect(JSON.stringify(rows)).not.toMatch(/246810|135791/);
      expect((await row(otp.id)).body).toBe(CODE_REMOVED_BODY);
      expect((await row(activation.id)).body).toBe(CODE_REMOVED_BODY);
      expect(await row(rule.id)).toMatchObject({ status: "sent", body: "EMERGENCY CFA: STRUC1 SHED FIRE" });
    });

    it("keeps a code SMS's code while it will be retried and removes it when it fails for good", async () => {
      const provider = fakeProvider();
      const w = worker(provider);
      const { id } = await enqueueSms(db, { to: PHONE, body: "Your code is 864200", kind: "otp" });
      await db.update(smsQueue).set({ maxAttempts: 2 }).where(eq(smsQueue.id, id));
      provider.next(
        new SmsSendError("timeout", { retryable: true }),
        new SmsSendError("content 864200 refused", { retryable: true }),
      );

      await w.runOnce();
      expect(await row(id)).toMatchObject({ status: "pending", body: "Your code is 864200" });
      await makeDue(id);
      await w.runOnce();

      const r = await row(id);
      expect(r).toMatchObject({ status: "failed", body: CODE_REMOVED_BODY });
      // The provider quoted the code alone, without the rest of the body.
      expect(r.lastError).toContain("content [code] refused");
    });

    it("marks a message failed when it runs out of attempts", async () => {
      const provider = fakeProvider();
      const w = worker(provider);
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "rule" });
      await db.update(smsQueue).set({ maxAttempts: 2 }).where(eq(smsQueue.id, id));
      provider.next(
        new SmsSendError("timeout", { retryable: true }),
        new SmsSendError("timeout again", { retryable: true }),
      );

      await w.runOnce();
      expect((await row(id)).status).toBe("pending");
      await makeDue(id);
      await w.runOnce();

      const r = await row(id);
      expect(r).toMatchObject({ status: "failed", attempts: 2, lockedAt: null });
      expect(r.lastError).toContain("timeout again");
      await makeDue(id);
      expect(await w.runOnce()).toBe(0);
      expect(provider.calls).toHaveLength(2);
    });

    it("marks a message failed at once when the provider says retrying cannot help", async () => {
      const provider = fakeProvider();
      provider.next(new SmsSendError("number not reachable", { retryable: false }));
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "account" });

      await worker(provider).runOnce();

      expect(await row(id)).toMatchObject({ status: "failed", attempts: 1 });
    });

    it("retries an unexpected error (not an SmsSendError)", async () => {
      const provider = fakeProvider();
      provider.next(new Error("socket hang up"));
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "notice" });

      await worker(provider).runOnce();

      expect(await row(id)).toMatchObject({ status: "pending", attempts: 1 });
    });

    it("keeps phone numbers and the body out of the stored error and the logs", async () => {
      const provider = fakeProvider();
      const { logger, lines } = captureLogger();
      provider.next(
        new SmsSendError(`rejected ${PHONE} text "Code 424242" (also 0412 345 678)`, { retryable: false }),
      );
      const { id } = await enqueueSms(db, { to: PHONE, body: "Code 424242", kind: "otp" });

      await worker(provider, { logger }).runOnce();

      const { lastError } = await row(id);
      expect(lastError).toContain("rejected");
      for (const secret of ["12345678", "424242", "345 678"]) {
        expect(lastError).not.toContain(secret);
        expect(lines.join("")).not.toContain(secret);
      }
      expect(lines.some((l) => JSON.parse(l).msg === "sms failed")).toBe(true);
      const logged = await db
        .select()
        .from(systemLogs)
        .where(sql`${systemLogs.details}->>'sms_id' = ${String(id)}`);
      expect(logged).toHaveLength(1);
      for (const secret of ["12345678", "424242", "345 678"])
        expect(JSON.stringify(logged)).not.toContain(secret);
    });

    it("writes a provider error to the system log as a warning, and a give-up as an error", async () => {
      const provider = fakeProvider();
      provider.next(
        new SmsSendError("MessageMedia answered 503", { retryable: true }),
        new SmsSendError("MessageMedia answered 400", { retryable: false }),
      );
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "rule" });
      const w = worker(provider);
      await w.runOnce();
      await makeDue(id);
      await w.runOnce();

      const logged = await db
        .select()
        .from(systemLogs)
        .where(sql`${systemLogs.details}->>'sms_id' = ${String(id)}`)
        .orderBy(systemLogs.id);
      expect(logged.map((l) => [l.level, l.category])).toEqual([
        ["warn", "sms"],
        ["error", "sms"],
      ]);
      expect(logged[0]!.message).toMatch(/^SMS provider error on SMS \d+ \(rule\), retry in 5 s: .*503/);
      expect(logged[1]!.message).toMatch(/^SMS \d+ \(rule\) failed after 2 attempts: .*400/);
    });

    it("takes over messages whose claim expired and sends them, failing those out of attempts", async () => {
      const provider = fakeProvider();
      const w = worker(provider);
      const expired = await enqueueSms(db, { to: PHONE, body: "expired", kind: "notice" });
      const exhausted = await enqueueSms(db, { to: PHONE, body: "exhausted", kind: "notice" });
      const held = await enqueueSms(db, { to: PHONE, body: "held", kind: "notice" });
      const claimed = { status: "sending", lockedAt: sql`now() - interval '30 seconds'` } as const;
      await db
        .update(smsQueue)
        .set({ ...claimed, attempts: 1, leaseUntil: sql`now() - interval '1 second'` })
        .where(eq(smsQueue.id, expired.id));
      await db
        .update(smsQueue)
        .set({ ...claimed, attempts: 5, leaseUntil: sql`now() - interval '1 second'` })
        .where(eq(smsQueue.id, exhausted.id));
      await db
        .update(smsQueue)
        .set({ ...claimed, attempts: 1, leaseUntil: sql`now() + interval '10 seconds'` })
        .where(eq(smsQueue.id, held.id));

      expect(await w.runOnce()).toBe(1);

      expect(provider.sent.map((m) => m.body)).toEqual(["expired"]);
      expect(await row(expired.id)).toMatchObject({ status: "sent", attempts: 2, leaseUntil: null });
      expect(await row(exhausted.id)).toMatchObject({
        status: "failed",
        attempts: 5,
        lastError: "Error: Interrupted while sending (worker stopped or crashed)",
      });
      expect(await row(held.id)).toMatchObject({ status: "sending", attempts: 1 });
    });

    it("renews its claim while the provider is slow, so no other worker takes the message", async () => {
      const provider = fakeProvider();
      const release = provider.hold();
      const a = worker(provider, { leaseMs: 400 });
      const b = worker(provider, { leaseMs: 400 });
      const { id } = await enqueueSms(db, { to: PHONE, body: "slow", kind: "rule" });
      const first = a.runOnce();
      await vi.waitFor(() => expect(provider.calls).toHaveLength(1));

      // Three lease lengths later the claim still holds: the other worker finds nothing to take.
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 200));
        expect(await b.runOnce()).toBe(0);
      }
      release();
      expect(await first).toBe(1);
      expect(provider.calls).toHaveLength(1);
      expect(await row(id)).toMatchObject({ status: "sent", attempts: 1 });
    });

    it("recovers stuck messages when it starts and sends them", async () => {
      const provider = fakeProvider();
      const { id } = await enqueueSms(db, { to: PHONE, body: "left behind", kind: "notice" });
      await db
        .update(smsQueue)
        .set({ status: "sending", attempts: 1, lockedAt: sql`now() - interval '6 minutes'` })
        .where(eq(smsQueue.id, id));

      worker(provider).start();

      await vi.waitFor(async () => expect((await row(id)).status).toBe("sent"), { timeout: 2000 });
    });

    it("sends each message exactly once when two workers claim the same rows concurrently", async () => {
      const provider = fakeProvider();
      provider.slow(5);
      const a = worker(provider, { batchSize: 4 });
      const b = worker(provider, { batchSize: 4 });
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) {
        ids.push((await enqueueSms(db, { to: PHONE, body: `message ${i}`, kind: "rule" })).id);
      }

      const counts = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);

      expect(counts.reduce((x, y) => x + y, 0)).toBe(40);
      const bodies = provider.calls.map((m) => m.body);
      expect(bodies).toHaveLength(40);
      expect(new Set(bodies).size).toBe(40);
      const rows = await db.select().from(smsQueue);
      expect(rows.every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
    });

    it("delivers at once on a nudge instead of waiting for the next poll", async () => {
      const provider = fakeProvider();
      const w = worker(provider, { pollMs: 60_000 });
      w.start();
      await w.runOnce(); // the start-up cycle is over; the next poll is a minute away

      const { id } = await enqueueSms(db, { to: PHONE, body: "Code 999999", kind: "otp" });
      const nudgedAt = Date.now();
      w.nudge();

      await vi.waitFor(() => expect(provider.sent).toHaveLength(1), { timeout: 1000, interval: 5 });
      expect(Date.now() - nudgedAt).toBeLessThan(1000);
      await vi.waitFor(async () => expect((await row(id)).status).toBe("sent"), { timeout: 1000 });
    });

    it("runs one more cycle after the current one when nudged during it", async () => {
      const provider = fakeProvider();
      const w = worker(provider, { pollMs: 60_000 });
      const release = provider.hold();
      await enqueueSms(db, { to: PHONE, body: "first", kind: "notice" });
      w.nudge();
      await vi.waitFor(() => expect(provider.calls).toHaveLength(1));

      await enqueueSms(db, { to: PHONE, body: "second", kind: "notice" });
      w.nudge();
      w.nudge();
      w.nudge();
      release();

      await vi.waitFor(() => expect(provider.sent.map((m) => m.body)).toEqual(["first", "second"]));
      expect(provider.calls).toHaveLength(2);
    });

    it("stop() waits for the message in flight to be recorded, and nothing runs after it", async () => {
      const provider = fakeProvider();
      const w = worker(provider);
      const release = provider.hold();
      const { id } = await enqueueSms(db, { to: PHONE, body: "in flight", kind: "notice" });
      w.start();
      await vi.waitFor(() => expect(provider.calls).toHaveLength(1));

      let stopped = false;
      const stopping = w.stop().then(() => {
        stopped = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(stopped).toBe(false);
      release();
      await stopping;

      expect((await row(id)).status).toBe("sent");
      await enqueueSms(db, { to: PHONE, body: "after stop", kind: "notice" });
      w.nudge();
      await new Promise((r) => setTimeout(r, 50));
      expect(provider.calls).toHaveLength(1);
    });

    it("logs a failing cycle and keeps polling", async () => {
      const provider = fakeProvider();
      const { logger, lines } = captureLogger();
      let failures = 1;
      // The same database, except that the first claim fails as if the connection dropped.
      const flaky = Object.create(db, {
        execute: {
          value: (query: Parameters<Database["execute"]>[0]) => {
            if (failures-- > 0) return Promise.reject(new Error("connection terminated"));
            return db.execute(query);
          },
        },
      }) as Database;
      const { id } = await enqueueSms(db, { to: PHONE, body: "eventually", kind: "notice" });

      const w = new SmsWorker({ db: flaky, provider, logger, pollMs: 20 });
      workers.push(w);
      w.start();

      await vi.waitFor(async () => expect((await row(id)).status).toBe("sent"), { timeout: 2000 });
      expect(lines.some((l) => JSON.parse(l).msg === "sms cycle failed")).toBe(true);
    });
  });

  describe("a worker killed while sending", () => {
    const LEASE_MS = 3000;
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), "turnout-kill-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    type Line = { to: string; body: string; key?: string };
    const outboxLines = (file: string): Line[] =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line);

    /** Claims every queued message through a worker whose provider takes `send`, then kills it. */
    async function claimAndKill(send: SmsProvider["send"], expectSending: number) {
      const doomed = killableDatabase(db);
      const dead = new SmsWorker({
        db: doomed.db,
        provider: { name: "doomed", send },
        logger: captureLogger().logger,
        leaseMs: LEASE_MS,
        batchSize: 50,
      });
      void dead.runOnce();
      await vi.waitFor(async () => {
        const rows = await db.select().from(smsQueue).where(eq(smsQueue.status, "sending"));
        expect(rows).toHaveLength(expectSending);
      });
      return doomed;
    }

    it("another worker sends its messages once the lease runs out, each exactly once", {
      timeout: 60_000,
    }, async () => {
      const ids: number[] = [];
      for (let i = 0; i < 40; i++) {
        ids.push((await enqueueSms(db, { to: PHONE, body: `turnout ${i}`, kind: "rule" })).id);
      }
      // The provider never answers: the process dies in the middle of its requests.
      const doomed = await claimAndKill(() => new Promise(() => {}), 40);
      doomed.kill();
      const killedAt = Date.now();

      const file = path.join(dir, "outbox.jsonl");
      worker(createOutboxProvider(file, captureLogger().logger), { leaseMs: LEASE_MS, pollMs: 250 }).start();
      await vi.waitFor(
        async () => {
          const rows = await db.select().from(smsQueue).where(inArray(smsQueue.id, ids));
          expect(rows.every((r) => r.status === "sent")).toBe(true);
        },
        { timeout: 45_000, interval: 50 },
      );

      // Within the lease and a poll, with room for a slow machine: never the minutes of a stuck threshold.
      expect(Date.now() - killedAt).toBeLessThan(45_000);
      const lines = outboxLines(file);
      expect(lines).toHaveLength(40);
      expect(new Set(lines.map((l) => l.body)).size).toBe(40);
      const rows = await db.select().from(smsQueue).where(inArray(smsQueue.id, ids));
      expect(rows.every((r) => r.attempts === 2 && r.leaseUntil === null)).toBe(true);
    });

    it("does not write a message again that the outbox took before its worker died", {
      timeout: 60_000,
    }, async () => {
      const file = path.join(dir, "outbox.jsonl");
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await enqueueSms(db, { to: PHONE, body: `accepted ${i}`, kind: "rule" })).id);
      }
      // Killed between the provider's acceptance and marking the row sent.
      const firstOutbox = createOutboxProvider(file, captureLogger().logger);
      const doomed = await claimAndKill((m) => firstOutbox.send(m).then(() => new Promise(() => {})), 5);
      await vi.waitFor(() => expect(outboxLines(file)).toHaveLength(5));
      doomed.kill();

      // Another process: its own provider on the same file.
      worker(createOutboxProvider(file, captureLogger().logger), { leaseMs: LEASE_MS, pollMs: 250 }).start();
      await vi.waitFor(
        async () => {
          const rows = await db.select().from(smsQueue).where(inArray(smsQueue.id, ids));
          expect(rows.every((r) => r.status === "sent")).toBe(true);
        },
        { timeout: 45_000, interval: 50 },
      );

      const lines = outboxLines(file);
      expect(lines).toHaveLength(5);
      const rows = await db.select().from(smsQueue).where(inArray(smsQueue.id, ids));
      expect(rows.map((r) => r.providerMessageId).sort()).toEqual(lines.map((l) => l.key).sort());
    });

    it("marks a message sent within milliseconds of the provider accepting it (the window a kill can hit)", async ({
      annotate,
    }) => {
      const file = path.join(dir, "outbox.jsonl");
      const outbox = createOutboxProvider(file, captureLogger().logger);
      const acceptedAt = new Map<string, number>();
      const provider: SmsProvider = {
        name: "timed",
        send: async (m) => {
          const result = await outbox.send(m);
          acceptedAt.set(m.key!, Date.now());
          return result;
        },
      };
      const ids: number[] = [];
      for (let i = 0; i < 100; i++) {
        ids.push((await enqueueSms(db, { to: PHONE, body: `timed ${i}`, kind: "notice" })).id);
      }
      await worker(provider).runOnce();

      const rows = await db.select().from(smsQueue).where(inArray(smsQueue.id, ids));
      const windows = rows
        .map((r) => r.sentAt!.getTime() - acceptedAt.get(r.providerMessageId!)!)
        .sort((a, b) => a - b);
      const median = windows[Math.floor(windows.length / 2)]!;
      const worst = windows.at(-1)!;
      await annotate(
        `sms acceptance-to-sent window over 100 messages: median ${median} ms, worst ${worst} ms`,
      );
      expect(worst).toBeLessThan(1000);
    });
  });

  describe("admin helpers", () => {
    async function seed() {
      const sent = await enqueueSms(db, { to: PHONE, body: "sent one", kind: "rule" });
      const failed1 = await enqueueSms(db, { to: "+61498765432", body: "Code 123456", kind: "otp" });
      const failed2 = await enqueueSms(db, { to: PHONE, body: "failed two", kind: "notice" });
      const pending = await enqueueSms(db, { to: PHONE, body: "pending", kind: "notice" });
      await db.update(smsQueue).set({ status: "sent", attempts: 1 }).where(eq(smsQueue.id, sent.id));
      for (const { id } of [failed1, failed2]) {
        await db
          .update(smsQueue)
          .set({ status: "failed", attempts: 5, lastError: "SmsSendError: nope" })
          .where(eq(smsQueue.id, id));
      }
      return { sent, failed1, failed2, pending };
    }

    it("lists the queue newest first with phones masked and codes withheld, filtered by status", async () => {
      const ids = await seed();

      const all = await listQueue(db);
      expect(all.total).toBe(4);
      expect(all.items.map((i) => i.id)).toEqual([
        ids.pending.id,
        ids.failed2.id,
        ids.failed1.id,
        ids.sent.id,
      ]);
      expect(JSON.stringify(all.items)).not.toContain("12345678");
      expect(all.items.find((i) => i.id === ids.failed1.id)).toMatchObject({
        to: "+614•••••432",
        body: null,
        status: "failed",
        lastError: "SmsSendError: nope",
      });
      expect(all.items.find((i) => i.id === ids.sent.id)?.body).toBe("sent one");

      const failed = await listQueue(db, { status: "failed", limit: 1, offset: 1 });
      expect(failed.total).toBe(2);
      expect(failed.items.map((i) => i.id)).toEqual([ids.failed1.id]);
    });

    it("retries one failed message with fresh attempts, and refuses others and code SMS", async () => {
      const ids = await seed();

      expect(await retrySms(db, ids.failed2.id)).toBe(true);
      expect(await row(ids.failed2.id)).toMatchObject({ status: "pending", attempts: 0 });
      expect(await secondsUntilDue(ids.failed2.id)).toBeLessThanOrEqual(0);
      expect(await retrySms(db, ids.failed1.id)).toBe(false);
      expect(await retrySms(db, ids.sent.id)).toBe(false);
      expect(await retrySms(db, ids.pending.id)).toBe(false);
      expect(await retrySms(db, 987654)).toBe(false);

      const provider = fakeProvider();
      await worker(provider).runOnce();
      expect(provider.sent.map((m) => m.body).sort()).toEqual(["failed two", "pending"]);
      expect((await row(ids.failed1.id)).status).toBe("failed");
    });

    it("retries every failed message except code SMS", async () => {
      const ids = await seed();

      expect(await retryAllFailed(db)).toBe(1);
      expect(await row(ids.failed2.id)).toMatchObject({ status: "pending", attempts: 0 });
      expect(await row(ids.failed1.id)).toMatchObject({ status: "failed", attempts: 5 });
      expect(await retryAllFailed(db)).toBe(0);
    });

    it("removes the code from a code SMS released as stuck after its last attempt", async () => {
      const stuckCode = await enqueueSms(db, { to: PHONE, body: "Code 975310", kind: "activation" });
      const stuckRule = await enqueueSms(db, { to: PHONE, body: "rule text", kind: "rule" });
      await db
        .update(smsQueue)
        .set({ status: "sending", attempts: 5, lockedAt: sql`now() - interval '10 minutes'` })
        .where(inArray(smsQueue.id, [stuckCode.id, stuckRule.id]));

      expect(await handleStuck(db, 60_000)).toBe(2);

      expect(await row(stuckCode.id)).toMatchObject({ status: "failed", body: CODE_REMOVED_BODY });
      expect(await row(stuckRule.id)).toMatchObject({ status: "failed", body: "rule text" });
    });

    it("migration 0008 removes codes from finished code SMS stored before the worker did", async () => {
      const rows = {
        sent: await enqueueSms(db, { to: PHONE, body: "Code 111222", kind: "otp" }),
        failed: await enqueueSms(db, { to: PHONE, body: "Code 333444", kind: "activation" }),
        pending: await enqueueSms(db, { to: PHONE, body: "Code 555666", kind: "otp" }),
        rule: await enqueueSms(db, { to: PHONE, body: "rule 777888", kind: "rule" }),
      };
      await db
        .update(smsQueue)
        .set({ status: "sent" })
        .where(inArray(smsQueue.id, [rows.sent.id, rows.rule.id]));
      await db.update(smsQueue).set({ status: "failed" }).where(eq(smsQueue.id, rows.failed.id));

      const migration = readFileSync(
        new URL("../../drizzle/0008_scrub_sms_codes.sql", import.meta.url),
        "utf8",
      );
      await db.execute(sql.raw(migration));

      expect((await row(rows.sent.id)).body).toBe(CODE_REMOVED_BODY);
      expect((await row(rows.failed.id)).body).toBe(CODE_REMOVED_BODY);
      expect((await row(rows.pending.id)).body).toBe("Code 555666");
      expect((await row(rows.rule.id)).body).toBe("rule 777888");
    });

    it("releases messages stuck longer than the given age", async () => {
      const { id } = await enqueueSms(db, { to: PHONE, body: "x", kind: "notice" });
      await db
        .update(smsQueue)
        .set({ status: "sending", attempts: 1, lockedAt: sql`now() - interval '2 minutes'` })
        .where(eq(smsQueue.id, id));

      expect(await handleStuck(db, 5 * 60_000)).toBe(0);
      expect(await handleStuck(db, 60_000)).toBe(1);
      expect((await row(id)).status).toBe("pending");
    });

    it("reports totals and the success rate, null before anything finished", async () => {
      expect(await smsStats(db)).toEqual({ total_sent: 0, success_rate: null, pending: 0, failed: 0 });

      await seed();
      await enqueueSms(db, { to: PHONE, body: "another", kind: "notice" });
      const third = await enqueueSms(db, { to: PHONE, body: "third sent", kind: "notice" });
      await db.update(smsQueue).set({ status: "sent" }).where(eq(smsQueue.id, third.id));

      expect(await smsStats(db)).toEqual({ total_sent: 2, success_rate: 50, pending: 2, failed: 2 });
    });
  });
});
