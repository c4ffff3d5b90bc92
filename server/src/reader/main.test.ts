import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp } from "../../test/build-app.js";
import { alerts } from "../db/schema.js";
import { type StandIn, startStandIn } from "../testing/ingest-stand-in.js";

const KEY = "cli-test-key";
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

let dir: string;
let server: StandIn;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "reader-cli-"));
  server = await startStandIn(KEY);
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

type Run = { child: ChildProcessWithoutNullStreams; exit: Promise<number | null>; stderr: () => string };

function runReader(args: string[]): Run {
  const env = { ...process.env };
  for (const name of [
    "TURNOUT_URL",
    "TURNOUT_INGEST_KEY",
    "READER_SOURCE",
    "READER_SPOOL_DIR",
    "READER_LOG_LEVEL",
    "READER_MAX_TRIES",
    "READER_MAX_RETRY_SECONDS",
    "READER_HEARTBEAT_SECONDS",
    "READER_DECODER_SILENT_SECONDS",
  ]) {
    delete env[name];
  }
  const child = spawn(process.execPath, ["--import", "tsx", "server/src/reader/main.ts", ...args], {
    cwd: REPO_ROOT,
    env,
  });
  children.push(child);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  child.stdout.resume();
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exit, stderr: () => stderr };
}

async function exitWithin(run: Run, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`reader still running after ${ms} ms:\n${run.stderr()}`)), ms);
  });
  try {
    return await Promise.race([run.exit, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const spoolDir = () => path.join(dir, "spool");
const deadLetters = () => {
  const file = path.join(spoolDir(), "dead-letter.jsonl");
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
};
const events = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const waiting = () =>
  existsSync(spoolDir()) ? readdirSync(spoolDir()).filter((f) => f.endsWith(".json")) : [];

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const INPUT = [
  "multimon-ng 1.3.1",
  "Enabled demodulators: POCSAG512 POCSAG1200 POCSAG2400 FLEX",
  "POCSAG1200: Address:  123456  Function: 3  Alpha:   @@ALERT F251108123 BRAV2 STRUC1 SHED FIRE [BRAV]<ETX><NUL>",
  "POCSAG1200: Address: 1234567  Function: 0 ",
  "FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|001234567|ALN|Hb F251108124 NOSTC1 SMOKE SIGHTED",
  "FLEX|2026-11-22 03:04:06|1600/2/K/A|08.085|002029568 000111111 000222222|ALN|QD TEST PAGE ALL BRIGADES",
  "FLEX|2026-11-22 03:04:07|1600/2/F/A|08.086|000333333|ALN|@@ALERT S251108125 RESCC1 ",
  "FLEX|2026-11-22 03:04:09|1600/2/C/A|08.087|000333333|ALN|TREE DOWN 3 EXAMPLE RD",
  "",
].join("\n");

describe("reader CLI", () => {
  it("reads multimon-ng lines from stdin, delivers every message, and exits 0 once the spool is empty", async () => {
    const run = runReader(["--url", server.url, "--key", KEY, "--source", "cli-test", "--spool", spoolDir()]);
    run.child.stdin.end(INPUT);
    expect(await exitWithin(run, 15_000)).toBe(0);

    const stored = server.storedIds.map((id) => server.stored.get(id));
    expect(stored.map((m) => [m?.capcode, m?.message])).toEqual([
      ["0123456", "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE [BRAV]"],
      ["1234567", "Hb F251108124 NOSTC1 SMOKE SIGHTED"],
      ["0111111", "QD TEST PAGE ALL BRIGADES"],
      ["0222222", "QD TEST PAGE ALL BRIGADES"],
      ["0333333", "@@ALERT S251108125 RESCC1 TREE DOWN 3 EXAMPLE RD"],
    ]);
    expect(stored.every((m) => m?.source === "cli-test" && m.id.startsWith("cli-test-"))).toBe(true);
    expect(stored[1]?.timestamp).toBe("2026-11-22T03:04:05.000Z");
    expect(waiting()).toEqual([]);

    const events = run
      .stderr()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event: string; level: string });
    expect(events.map((e) => e.event)).toContain("drained");
    // Info lines carry a preview, never a whole pager text.
    expect(run.stderr()).not.toContain("SHED FIRE [BRAV]");
    expect(run.stderr()).not.toContain(KEY);
  }, 30_000);

  it("heartbeats at its interval with spool depth, dead letters, decoder status, uptime and version", async () => {
    server.mode = "503";
    const run = runReader([
      "--url",
      server.url,
      "--key",
      KEY,
      "--spool",
      spoolDir(),
      "--heartbeat-seconds",
      "1",
    ]);
    run.child.stdin.write(`${INPUT}`);
    await until(() => waiting().length === 5 && server.heartbeats.length >= 3, 15_000);
    const beats = server.heartbeats;
    // The first at start (before any line), then one a second, with the spool as it fills.
    expect(beats.at(-1)).toMatchObject({
      spool_depth: 5,
      dead_letters: 0,
      decoder: "ok",
      version: expect.stringMatching(/^turnout-reader /),
    });
    expect(beats.at(-1)!.uptime_seconds).toBeGreaterThanOrEqual(1);
    expect(typeof beats.at(-1)!.decoder_last_line_at).toBe("string");
    run.child.stdin.end();
    await until(() => server.heartbeats.at(-1)?.decoder === "stopped", 10_000);
    server.mode = "ok";
    expect(await exitWithin(run, 20_000)).toBe(0);
    expect(run.stderr()).not.toContain(KEY);
  }, 40_000);

  it("exits non-zero with a clear message when the key is refused, keeping the spool", async () => {
    const run = runReader(["--url", server.url, "--key", "wrong-key", "--spool", spoolDir()]);
    run.child.stdin.write(`${INPUT}`);
    expect(await exitWithin(run, 15_000)).toBe(1);
    expect(run.stderr()).toContain("ingest_key_refused");
    expect(run.stderr()).toContain("TURNOUT_INGEST_KEY");
    expect(waiting().length).toBeGreaterThan(0);
    expect(server.storedIds).toEqual([]);
  }, 30_000);

  it("stops cleanly on SIGTERM while the server is down, leaving the spool for the next start", async () => {
    await server.down();
    const run = runReader(["--url", server.url, "--key", KEY, "--spool", spoolDir()]);
    // Everything but the continuation of the FLEX fragment, which the reader holds in memory meanwhile.
    run.child.stdin.write(`${INPUT.split("\n").slice(0, 7).join("\n")}\n`);
    await until(() => waiting().length === 4, 15_000);
    run.child.kill("SIGTERM");
    expect(await exitWithin(run, 5000)).toBe(0);
    // The held fragment was spooled on the way out: nothing read is lost.
    expect(waiting()).toHaveLength(5);
    expect(run.stderr()).toContain('"event":"stopped"');
  }, 30_000);

  it("sets a message the server refuses aside in dead-letter.jsonl and delivers the ones after it", async () => {
    server.refuseIf = (item) => (item.capcode === "0111111" ? "capcode: not a pager of ours" : null);
    const run = runReader(["--url", server.url, "--key", KEY, "--source", "cli-test", "--spool", spoolDir()]);
    run.child.stdin.end(INPUT);
    expect(await exitWithin(run, 15_000)).toBe(0);

    expect(server.storedIds.map((id) => server.stored.get(id)?.capcode)).toEqual([
      "0123456",
      "1234567",
      "0222222",
      "0333333",
    ]);
    const dead = deadLetters();
    expect(dead).toMatchObject([
      {
        capcode: "0111111",
        message: "QD TEST PAGE ALL BRIGADES",
        status: 200,
        reason: "capcode: not a pager of ours",
      },
    ]);
    expect(waiting()).toEqual([]);
    const setAside = events(run.stderr()).filter((e) => e.event === "message_set_aside");
    expect(setAside).toMatchObject([
      { id: dead[0]?.id, capcode: "0111111", reason: "capcode: not a pager of ours" },
    ]);
    expect(JSON.stringify(setAside)).not.toContain("TEST PAGE");
  }, 30_000);

  it("against the real server: stores a page carrying NUL and BEL bytes and sets aside one it refuses", async () => {
    const realKey = "cli-test-real-server-key";
    const app = await buildTestApp({ INGEST_API_KEY: realKey });
    try {
      await app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = app.server.address() as { port: number };
      const input = [
        "POCSAG1200: Address:  123456  Function: 3  Alpha:   @@ALERT F251108199 BRAV2 STRUC1 \u0000SHED\u0007 FIRE [BRAV]",
        `FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|001234567|ALN|Hb F251108198 ${"LONG ".repeat(420)}`,
        "FLEX|2026-11-22 03:04:06|1600/2/K/A|08.085|000222222|ALN|QD TEST PAGE AFTER THE LONG ONE",
        "",
      ].join("\n");
      const run = runReader([
        "--url",
        `http://127.0.0.1:${port}`,
        "--key",
        realKey,
        "--source",
        "rx-real",
        "--spool",
        spoolDir(),
      ]);
      run.child.stdin.end(input);
      expect(await exitWithin(run, 20_000)).toBe(0);

      const rows = await app.db.select().from(alerts).where(eq(alerts.source, "rx-real"));
      expect(rows.map((r) => [r.capcode, r.rawMessage])).toEqual([
        ["0123456", "@@ALERT F251108199 BRAV2 STRUC1 SHED FIRE [BRAV]"],
        ["0222222", "QD TEST PAGE AFTER THE LONG ONE"],
      ]);
      expect(deadLetters()).toMatchObject([
        { capcode: "1234567", status: 200, reason: "message: message must be at most 2000 characters" },
      ]);
      expect(waiting()).toEqual([]);
    } finally {
      await app.cleanup();
    }
  }, 40_000);

  it("refuses to start without a URL", async () => {
    const run = runReader(["--key", KEY, "--spool", spoolDir()]);
    run.child.stdin.end();
    expect(await exitWithin(run, 15_000)).toBe(2);
    expect(run.stderr()).toContain("missing --url");
  }, 30_000);
});
