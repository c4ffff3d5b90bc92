import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOutboxProvider } from "./outbox-provider.js";

describe("outbox provider", () => {
  let dir: string;
  let logLines: string[];
  const logger = () => pino({ level: "debug" }, { write: (line: string) => logLines.push(line) });

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "turnout-outbox-"));
    logLines = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("appends one JSON line with to, body and an ISO time per message, creating missing folders", async () => {
    const file = path.join(dir, "nested", "deeper", "sms-outbox.jsonl");
    const provider = createOutboxProvider(file, logger());
    const before = Date.now();

    await provider.send({ to: "+61412345678", body: "Your Turnout code is 123456" });
    await provider.send({ to: "+61498765432", body: 'Quotes " and\nnew lines stay on one line' });

    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual(["to", "body", "at"]);
    expect(first).toMatchObject({ to: "+61412345678", body: "Your Turnout code is 123456" });
    expect(new Date(first.at).toISOString()).toBe(first.at);
    expect(Date.parse(first.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(JSON.parse(lines[1]!)).toMatchObject({
      to: "+61498765432",
      body: 'Quotes " and\nnew lines stay on one line',
    });
    expect(provider.name).toBe("outbox");
  });

  it("keeps every line whole when many messages are written at once", async () => {
    const file = path.join(dir, "sms-outbox.jsonl");
    const provider = createOutboxProvider(file, logger());
    const bodies = Array.from({ length: 50 }, (_, i) => `message ${i} ${"x".repeat(200)}`);

    await Promise.all(bodies.map((body) => provider.send({ to: "+61412345678", body })));

    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(50);
    expect(new Set(lines.map((l) => JSON.parse(l).body))).toEqual(new Set(bodies));
  });

  it("logs the masked phone and never the body", async () => {
    const provider = createOutboxProvider(path.join(dir, "sms-outbox.jsonl"), logger());

    await provider.send({ to: "+61412345678", body: "Your Turnout code is 987654" });

    expect(logLines).toHaveLength(1);
    const entry = JSON.parse(logLines[0]!);
    expect(entry.msg).toBe("sms written to outbox");
    expect(entry.to).toBe("+614•••••678");
    expect(logLines[0]).not.toContain("987654");
    expect(logLines[0]).not.toContain("12345678");
  });

  it("writes a queue row's key once: a second send, also from another process's provider, is answered without a line", async () => {
    const file = path.join(dir, "sms-outbox.jsonl");
    const first = createOutboxProvider(file, logger());
    const second = createOutboxProvider(file, logger());
    const message = {
      to: "+61412345678",
      body: "Turnout: HAYSHED FIRE",
      key: "turnout-sms-7-1795464229000000",
    };

    expect(await first.send(message)).toEqual({ providerMessageId: message.key });
    expect(await first.send(message)).toEqual({ providerMessageId: message.key });
    expect(await second.send(message)).toEqual({ providerMessageId: message.key });
    await Promise.all([first.send({ ...message, key: "k-2" }), first.send({ ...message, key: "k-2" })]);

    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.key)).toEqual([message.key, "k-2"]);
    expect(logLines.filter((l) => l.includes("not written again"))).toHaveLength(3);
  });

  it("writes a key again once the outbox file was removed (a fresh start)", async () => {
    const file = path.join(dir, "sms-outbox.jsonl");
    const provider = createOutboxProvider(file, logger());
    const message = { to: "+61412345678", body: "again", key: "k-1" };
    await provider.send(message);
    rmSync(file);

    await provider.send(message);

    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  });
});
