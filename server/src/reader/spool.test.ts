import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type StandIn, startStandIn } from "../testing/ingest-stand-in.js";
import type { IngestItem } from "./ingest-client.js";
import { parseRetryAfter, postMessages } from "./ingest-client.js";
import { createLog, type Log, silentLog } from "./log.js";
import { Sender, type SenderOptions, UnauthorisedError } from "./sender.js";
import { Spool } from "./spool.js";

const KEY = "test-ingest-key";
const SOURCE = "pi-north";

let dir: string;
let server: StandIn;
const senders: Sender[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "reader-spool-"));
  server = await startStandIn(KEY);
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.stop()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openSpool(options: { scanLimit?: number; log?: Log } = {}): Promise<Spool> {
  const spool = new Spool(dir, { log: options.log ?? silentLog, scanLimit: options.scanLimit });
  await spool.open();
  return spool;
}

function sender(spool: Spool, overrides: Partial<SenderOptions> = {}): Sender {
  const s = new Sender({
    spool,
    baseUrl: server.url,
    key: KEY,
    log: silentLog,
    baseDelayMs: 20,
    maxDelayMs: 100,
    requestTimeoutMs: 300,
    idlePollMs: 50,
    ...overrides,
  });
  senders.push(s);
  return s;
}

async function addMany(spool: Spool, count: number, text = (i: number) => `@@ALERT F2511${i} TEST`) {
  const items: IngestItem[] = [];
  for (let i = 0; i < count; i++) {
    items.push(
      await spool.add({
        capcode: String(1000000 + (i % 5)),
        message: text(i),
        timestamp: new Date(Date.UTC(2026, 10, 22, 3, 4, 5, i)),
        source: SOURCE,
      }),
    );
  }
  return items;
}

const waiting = () => readdirSync(dir).filter((f) => f.endsWith(".json"));
const rejected = () => readdirSync(path.join(dir, "rejected"));
type DeadLetter = IngestItem & { status: number; reason: string; at: string };
const deadLetters = (): DeadLetter[] =>
  existsSync(path.join(dir, "dead-letter.jsonl"))
    ? readFileSync(path.join(dir, "dead-letter.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as DeadLetter)
    : [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

function noDuplicates(ids: string[]): void {
  expect(new Set(ids).size).toBe(ids.length);
}

describe("Spool", () => {
  it("writes each message as one complete file with a stable id, leaving no temp file", async () => {
    const spool = await openSpool();
    const item = await spool.add({
      capcode: "0123456",
      message: "@@ALERT F251108123 STRUC1",
      timestamp: new Date("2026-11-22T03:04:05.000Z"),
      source: "pi north/1",
    });
    expect(item).toMatchObject({
      capcode: "0123456",
      message: "@@ALERT F251108123 STRUC1",
      timestamp: "2026-11-22T03:04:05.000Z",
      source: "pi north/1",
    });
    expect(item.id).toMatch(/^pi_north_1-\d{13}-[0-9a-f]{12}$/);
    const files = waiting();
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(dir, files[0] as string), "utf8"))).toEqual(item);
    expect(readdirSync(path.join(dir, "tmp"))).toEqual([]);
  });

  it("hands out the oldest messages first in batches while scanning only a bounded number of names", async () => {
    const spool = await openSpool({ scanLimit: 7 });
    const added = await addMany(spool, 25);
    const seen: string[] = [];
    for (;;) {
      const batch = await spool.next(10);
      if (batch.length === 0) break;
      expect(batch.length).toBeLessThanOrEqual(10);
      seen.push(...batch.map((e) => e.item.id));
      await spool.remove(batch);
    }
    expect(seen).toEqual(added.map((i) => i.id));
    expect(waiting()).toEqual([]);
  });

  it("moves an unreadable spool file to rejected/ instead of deleting it", async () => {
    const spool = await openSpool();
    const [good] = await addMany(spool, 1);
    writeFileSync(path.join(dir, "000000000000001-000000-0123456789ab.json"), "{half a mess");
    const batch = await spool.next(10);
    expect(batch.map((e) => e.item.id)).toEqual([good?.id]);
    expect(rejected().sort()).toEqual([
      "000000000000001-000000-0123456789ab.json",
      "000000000000001-000000-0123456789ab.reason.json",
    ]);
  });

  it("clears half-written temp files on open and reports how many messages wait", async () => {
    const first = await openSpool();
    await addMany(first, 3);
    writeFileSync(path.join(dir, "tmp", "000000000000009-000000-aaaaaaaaaaaa.json"), '{"id":');
    const again = new Spool(dir, { log: silentLog });
    expect(await again.open()).toBe(3);
    expect(readdirSync(path.join(dir, "tmp"))).toEqual([]);
  });
});

describe("Sender", () => {
  it("delivers everything spooled while the server was down, once each and in order, when it returns", async () => {
    await server.down();
    const spool = await openSpool();
    const s = sender(spool);
    void s.start();
    const added = await addMany(spool, 250);
    await sleep(300);
    expect(server.storedIds).toEqual([]);
    await server.up();
    await server.waitForStored(250);
    await s.whenEmpty();
    expect(server.storedIds).toEqual(added.map((i) => i.id));
    noDuplicates(server.acceptedIds);
    expect(Math.max(...server.requests.map((r) => r.ids.length))).toBeLessThanOrEqual(100);
    expect(waiting()).toEqual([]);
  }, 15_000);

  it("retries 503s whole with growing delays, then delivers", async () => {
    server.mode = "503";
    server.retryAfter = "0";
    const spool = await openSpool();
    const added = await addMany(spool, 3);
    const s = sender(spool);
    void s.start();
    await until(() => server.requests.length >= 4);
    const gaps = server.requests.slice(1, 4).map((r, i) => r.at - (server.requests[i]?.at ?? 0));
    expect(gaps.every((g) => g >= 9)).toBe(true);
    server.mode = "ok";
    await s.whenEmpty();
    expect(server.storedIds).toEqual(added.map((i) => i.id));
    noDuplicates(server.acceptedIds);
  }, 15_000);

  it("sets aside a message that gets 500 while the pages around and after it are delivered", async () => {
    const spool = await openSpool();
    const lines: string[] = [];
    const s = sender(spool, { maxTries: 3, log: createLog((line) => lines.push(line), "info") });
    const [before, poison, after] = await addMany(spool, 3);
    server.failIf = (item) => item.id === poison!.id;
    void s.start();
    await server.waitForStored(2);
    expect(server.storedIds).toEqual([before!.id, after!.id]);
    // A page received while the bad one is held back goes out without waiting for it.
    const [next] = await addMany(spool, 1, () => "@@ALERT F251199999 NEXT PAGE");
    s.nudge();
    await server.waitForStored(3);
    await until(() => lines.some((l) => l.includes("MESSAGE_SET_ASIDE_SERVER_ERROR")));
    expect(server.storedIds).toEqual([before!.id, after!.id, next!.id]);
    expect(deadLetters()[0]).toMatchObject({ id: poison!.id, status: 500 });
    expect(deadLetters()[0]!.reason).toMatch(
      /^the server failed on this message 3 times over \d+ s while storing others/,
    );
    const loud = lines.map((l) => JSON.parse(l)).find((l) => l.event === "MESSAGE_SET_ASIDE_SERVER_ERROR");
    expect(loud).toMatchObject({ level: "error", id: poison!.id, tries: 3, status: 500 });
    await s.whenEmpty();
    expect(waiting()).toEqual([]);
    // Tried alone three times, and once in each batch it was part of.
    expect(server.requests.filter((r) => r.ids.length === 1 && r.ids[0] === poison!.id).length).toBe(3);
  }, 15_000);

  it("waits losing nothing when every message gets 503, and when every message gets 500", async () => {
    for (const mode of ["503", "500"] as const) {
      rmSync(dir, { recursive: true, force: true });
      const spool = await openSpool();
      server.mode = mode;
      server.retryAfter = "0";
      const added = await addMany(spool, 30);
      const s = sender(spool, { maxTries: 2, maxRetryMs: 50, batchSize: 10 });
      void s.start();
      await until(() => server.requests.length >= 25);
      await sleep(200);
      expect(deadLetters()).toEqual([]);
      expect(waiting()).toHaveLength(30);
      server.mode = "ok";
      await s.whenEmpty();
      expect(new Set(server.storedIds)).toEqual(new Set(added.map((i) => i.id)));
      expect(deadLetters()).toEqual([]);
      await s.stop();
      server.storedIds.splice(0);
      server.stored.clear();
      server.requests.splice(0);
    }
  }, 20_000);

  it("waits as long as Retry-After says after a 429", async () => {
    server.mode = "429";
    server.retryAfter = "1";
    const spool = await openSpool();
    await addMany(spool, 2);
    const s = sender(spool);
    void s.start();
    await until(() => server.requests.length >= 1);
    server.mode = "ok";
    await s.whenEmpty();
    const [limited, accepted] = server.requests;
    expect(limited?.status).toBe(429);
    expect(accepted?.status).toBe(200);
    expect((accepted?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(server.storedIds).toHaveLength(2);
  }, 15_000);

  it("gives up on a reply that does not come in time and retries without the server storing twice", async () => {
    server.mode = "slow";
    server.slowMs = 1500;
    const spool = await openSpool();
    const added = await addMany(spool, 5);
    const s = sender(spool, { requestTimeoutMs: 200 });
    void s.start();
    await until(() => server.requests.length >= 2);
    server.mode = "ok";
    await s.whenEmpty();
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    for (const r of server.requests) expect(r.ids).toEqual(added.map((i) => i.id));
    expect(server.storedIds).toEqual(added.map((i) => i.id));
    expect(waiting()).toEqual([]);
  }, 15_000);

  it("sets a batch the server calls malformed aside in the dead-letter file and carries on", async () => {
    server.mode = "400";
    const lines: Array<Record<string, unknown>> = [];
    const log = createLog((line) => lines.push(JSON.parse(line)), "info");
    const spool = await openSpool({ log });
    const added = await addMany(spool, 3);
    const s = sender(spool, { log });
    void s.start();
    await s.whenEmpty();
    expect(deadLetters().map((d) => [d.id, d.message, d.status, d.reason])).toEqual(
      added.map((i) => [i.id, i.message, 400, "validation_error: Batch is malformed"]),
    );
    expect(waiting()).toEqual([]);
    const setAside = lines.filter((l) => l.event === "message_set_aside");
    expect(setAside.map((l) => [l.id, l.capcode, l.reason])).toEqual(
      added.map((i) => [i.id, i.capcode, "validation_error: Batch is malformed"]),
    );
    expect(JSON.stringify(lines)).not.toContain("@@ALERT");
    expect(server.storedIds).toEqual([]);

    server.mode = "ok";
    const [later] = await addMany(spool, 1);
    s.nudge();
    await s.whenEmpty();
    expect(server.storedIds).toEqual([later?.id]);
  }, 15_000);

  it("isolates the one malformed message of a batch and delivers the others in order", async () => {
    server.rejectIf = (item) => item.message.includes("BAD");
    const spool = await openSpool();
    const added = await addMany(spool, 10, (i) => (i === 3 ? "BAD MESSAGE" : `@@ALERT ${i}`));
    const s = sender(spool);
    void s.start();
    await s.whenEmpty();
    expect(server.storedIds).toEqual(added.filter((i) => i.message !== "BAD MESSAGE").map((i) => i.id));
    expect(deadLetters().map((d) => [d.id, d.message])).toEqual([[added[3]?.id, "BAD MESSAGE"]]);
  }, 15_000);

  it("sets aside the messages a 2xx reply lists as refused, removes the stored ones, and goes on", async () => {
    server.refuseIf = (item) =>
      item.message.includes("POISON") ? "capcode: A capcode is 1 to 10 digits." : null;
    const lines: Array<Record<string, unknown>> = [];
    const log = createLog((line) => lines.push(JSON.parse(line)), "info");
    const spool = await openSpool({ log });
    const added = await addMany(spool, 6, (i) => (i % 3 === 1 ? `POISON ${i}` : `@@ALERT ${i}`));
    const s = sender(spool, { log, batchSize: 4 });
    void s.start();
    await s.whenEmpty();
    const poison = added.filter((i) => i.message.startsWith("POISON"));
    expect(server.storedIds).toEqual(added.filter((i) => !poison.includes(i)).map((i) => i.id));
    expect(deadLetters().map((d) => [d.id, d.capcode, d.message, d.status, d.reason])).toEqual(
      poison.map((i) => [i.id, i.capcode, i.message, 200, "capcode: A capcode is 1 to 10 digits."]),
    );
    expect(deadLetters().every((d) => !Number.isNaN(Date.parse(d.at)))).toBe(true);
    expect(waiting()).toEqual([]);
    // Each batch went once: a refusal is not retried.
    expect(server.requests).toHaveLength(2);
    const setAside = lines.filter((l) => l.event === "message_set_aside");
    expect(setAside.map((l) => l.id)).toEqual(poison.map((i) => i.id));
    expect(JSON.stringify(setAside)).not.toContain("POISON");
  }, 15_000);

  it("sets aside a message the server answers with another 4xx (404), once it stands alone", async () => {
    server.mode = "404";
    const spool = await openSpool();
    const added = await addMany(spool, 2);
    const s = sender(spool);
    void s.start();
    await s.whenEmpty();
    expect(deadLetters().map((d) => [d.id, d.status])).toEqual(added.map((i) => [i.id, 404]));
    expect(waiting()).toEqual([]);
  }, 15_000);

  it("retries a 408 and sets nothing aside", async () => {
    server.mode = "408";
    const spool = await openSpool();
    const [item] = await addMany(spool, 1);
    const s = sender(spool);
    void s.start();
    await until(() => server.requests.length >= 2);
    expect(waiting()).toHaveLength(1);
    server.mode = "ok";
    await s.whenEmpty();
    expect(server.storedIds).toEqual([item?.id]);
    expect(deadLetters()).toEqual([]);
  }, 15_000);

  it("ends a dead-letter line a crash cut short before appending the next one", async () => {
    writeFileSync(path.join(dir, "dead-letter.jsonl"), '{"id":"old","reason":"x"}\n{"id":"cut');
    server.refuseIf = () => "message: message is required";
    const spool = await openSpool();
    const [item] = await addMany(spool, 1);
    const s = sender(spool);
    void s.start();
    await s.whenEmpty();
    const lines = readFileSync(path.join(dir, "dead-letter.jsonl"), "utf8").split("\n");
    expect(lines[1]).toBe('{"id":"cut');
    expect(JSON.parse(lines[2] as string)).toMatchObject({
      id: item?.id,
      reason: "message: message is required",
    });
  }, 15_000);

  it("stops on 401 and keeps every message in the spool", async () => {
    server.mode = "401";
    const spool = await openSpool();
    await addMany(spool, 2);
    const s = sender(spool);
    await expect(s.start()).rejects.toBeInstanceOf(UnauthorisedError);
    expect(waiting()).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  }, 15_000);

  it("does not take a 200 web page for a stored batch", async () => {
    server.mode = "html";
    const spool = await openSpool();
    await addMany(spool, 1);
    const s = sender(spool);
    void s.start();
    await until(() => server.requests.length >= 2);
    expect(waiting()).toHaveLength(1);
    server.mode = "ok";
    await s.whenEmpty();
    expect(server.storedIds).toHaveLength(1);
  }, 15_000);

  it("after a restart, a new sender on the same folder sends what the old one left", async () => {
    await server.down();
    const spool = await openSpool();
    const added = await addMany(spool, 5);
    const before = sender(spool, { baseDelayMs: 60_000, maxDelayMs: 60_000 });
    void before.start();
    await sleep(200);
    const stopping = Date.now();
    await before.stop();
    expect(Date.now() - stopping).toBeLessThan(500);
    expect(waiting()).toHaveLength(5);

    await server.up();
    const reopened = new Spool(dir, { log: silentLog });
    expect(await reopened.open()).toBe(5);
    const after = sender(reopened);
    void after.start();
    await after.whenEmpty();
    expect(server.storedIds).toEqual(added.map((i) => i.id));
    expect(waiting()).toEqual([]);
  }, 15_000);
});

describe("postMessages", () => {
  it("does not believe a 2xx whose refusal names no message of the batch: the batch is retried", async () => {
    const items: IngestItem[] = [
      { id: "a-1", capcode: "0100001", message: "x", timestamp: "2026-11-22T03:04:05.000Z", source: "a" },
    ];
    const replies = [
      { success: true, data: [], refused: [{ index: 3, id: "a-1", reason: "?" }] },
      { success: true, data: [], refused: [{ index: 0, id: "b-9", reason: "?" }] },
      { success: true, data: [], refused: "all" },
      { success: true, data: [], refused: [{ index: 0, id: "a-1", reason: "message: message is required" }] },
    ];
    const fake = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(replies.shift()));
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const post = () => postMessages({ baseUrl, key: KEY, items, timeoutMs: 2000 });
      for (let i = 0; i < 3; i++) expect((await post()).kind).toBe("retry");
      expect(await post()).toEqual({
        kind: "stored",
        refused: [{ index: 0, reason: "message: message is required" }],
      });
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds, HTTP dates and the body's retryAfter", () => {
    expect(parseRetryAfter("2", "")).toBe(2000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 03:04:10 GMT", "", Date.parse("2026-11-22T03:04:05Z"))).toBe(
      5000,
    );
    expect(parseRetryAfter(null, '{"success":false,"retryAfter":3}')).toBe(3000);
    expect(parseRetryAfter(null, "nope")).toBeUndefined();
  });
});
