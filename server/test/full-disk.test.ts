import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddedDatabase } from "../src/db/pglite-remote.js";
import { DatabaseReachability } from "../src/db/reachability.js";
import { testEngine } from "./build-app.js";
import { freePort, type ServerProcess, spawnServer } from "./server-process.js";

// Embedded PGlite on a disk that fills up: a real server on a small tmpfs (mounting needs root, as in CI).

const INGEST_KEY = "full-disk-test-ingest-key-0123456789";
const root = mkdtempSync(path.join(tmpdir(), "turnout-fulldisk-"));
const mnt = path.join(root, "mnt");
const roMnt = path.join(root, "ro");

function tryMount(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const unmount = (dir: string) => {
  try {
    execFileSync("umount", [dir], { stdio: "ignore" });
  } catch {}
};

const canMount = tryMount(mnt, "size=200m");
if (canMount) unmount(mnt);

/**
 * Fills the file system holding `dir` (a filler file written until ENOSPC), then gives `leaveMb` back:
 * with 12 MB left the tables still grow but the next 16 MB WAL segment cannot be made, which is the
 * write that leaves PGlite stuck.
 */
function fill(file: string, leaveMb = 0): void {
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${file}`, "bs=1M"], { stdio: "ignore" });
  } catch {} // dd ends with "No space left on device": that is the point.
  if (leaveMb > 0) execFileSync("truncate", ["-s", `-${leaveMb}M`, file]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Started = ServerProcess & { exited: Promise<number | null> };

async function start(dataDir: string): Promise<Started> {
  const server = spawnServer(await freePort(), {
    DATA_DIR: dataDir,
    INGEST_API_KEY: INGEST_KEY,
    LOG_LEVEL: "warn",
  });
  const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
  return { ...server, exited };
}

/** A request that must be answered within a few seconds: a hang is a status of "timeout". */
async function timed(
  url: string,
  init?: RequestInit,
): Promise<{ status: number | "timeout"; ms: number; retryAfter: string | null; body: string }> {
  const t = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(6_000) });
    return {
      status: res.status,
      ms: Date.now() - t,
      retryAfter: res.headers.get("retry-after"),
      body: await res.text(),
    };
  } catch {
    return { status: "timeout", ms: Date.now() - t, retryAfter: null, body: "" };
  }
}

let batchNo = 0;
const ingest = (base: string) => {
  const b = batchNo++;
  const messages = Array.from({ length: 20 }, (_, i) => ({
    capcode: "0123456",
    message: `DISKPROBE ${b} ${i} STRUC1 HOUSE FIRE ${"x".repeat(300)}`,
    id: `disk-${b}-${i}`,
    source: "disk-test",
  }));
  return timed(`${base}/api/ingest/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": INGEST_KEY },
    body: JSON.stringify({ messages }),
  });
};

/** A batch of distinct pages; `size` 500 of ~1 KB writes about 4 MB of WAL. */
const nextBatch = (size = 20) => {
  const b = batchNo++;
  return Array.from({ length: size }, (_, i) => ({
    capcode: "0123456",
    message: `DISKPROBE ${b} ${i} STRUC1 HOUSE FIRE ${(size > 20 ? "y" : "x").repeat(size > 20 ? 1000 : 300)}`,
    id: `brief-${b}-${i}`,
    source: "disk-test",
  }));
};

/** Posts a batch; a reply slower than `ms` counts as "timeout" (the request is abandoned). */
async function ingestBatch(base: string, messages: unknown[], ms: number) {
  try {
    const res = await fetch(`${base}/api/ingest/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": INGEST_KEY },
      body: JSON.stringify({ messages }),
      signal: AbortSignal.timeout(ms),
    });
    return { status: res.status as number | "timeout", body: await res.text() };
  } catch {
    return { status: "timeout" as const, body: "" };
  }
}

// The embedded database only: on the server-pg project it would run the same PGlite servers again.
describe.skipIf(!canMount || testEngine === "postgres")(
  "embedded PGlite on a full disk (skipped: mounting a tmpfs was refused; needs root)",
  () => {
    let server: Started | null = null;

    beforeAll(() => {
      if (!tryMount(mnt, "size=200m")) throw new Error("tmpfs mount failed");
    });

    afterAll(async () => {
      if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
      await server?.exited;
      unmount(mnt);
      unmount(roMnt);
      rmSync(root, { recursive: true, force: true });
    });

    it("answers 503 fast while the disk is full, says so in health, recovers when space returns (also from a disk full for only 0.3 s or 1 s, losing nothing), and stops on SIGTERM", async () => {
      server = await start(path.join(mnt, "data"));
      const s = server;
      const deadline = Date.now() + 60_000;
      while ((await timed(`${s.base}/api/health`)).status !== 200) {
        if (Date.now() > deadline || s.child.exitCode !== null)
          throw new Error(`not healthy:\n${s.output()}`);
        await sleep(200);
      }
      expect((await ingest(s.base)).status).toBe(200);

      // Health under load: its ping does not wait behind the queued writes on the one connection.
      let lastIngestAt = 0;
      const load = Array.from({ length: 40 }, () =>
        ingest(s.base).then((r) => {
          lastIngestAt = Date.now();
          return r;
        }),
      );
      await sleep(20);
      const underLoad = await timed(`${s.base}/api/health`);
      const healthAt = Date.now();
      expect((await Promise.all(load)).map((r) => r.status)).toEqual(Array(40).fill(200));
      expect(underLoad.status).toBe(200);
      expect(JSON.parse(underLoad.body)).toMatchObject({ database: "up" });
      expect(healthAt).toBeLessThan(lastIngestAt);

      const filler = path.join(mnt, "filler");
      fill(filler);
      const during = [];
      for (let i = 0; i < 40; i++) during.push(await ingest(s.base));
      const health = await timed(`${s.base}/api/health`);

      // Every request answered within a few seconds; once the disk is full, writes are refused politely.
      expect(during.filter((r) => r.status === "timeout")).toEqual([]);
      expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(5_000);
      const refused = during.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(during.filter((r) => r.status !== 503 && r.status !== 200)).toEqual([]);
      expect(refused.every((r) => r.retryAfter !== null && /storage is full/.test(r.body))).toBe(true);
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({ status: "error", storage: "full" });

      // Space returns: ingest works again without a restart.
      rmSync(filler);
      let ok = false;
      const back = Date.now() + 15_000;
      while (!ok && Date.now() < back) {
        ok = (await ingest(s.base)).status === 200;
        if (!ok) await sleep(300);
      }
      expect(ok).toBe(true);

      // A disk full for a moment only: a refused WAL write leaves PGlite stuck (or answering PANIC) even
      // once there is room again; it is replaced by itself, and nothing acknowledged is lost.
      const acknowledged: unknown[][] = [];
      for (const clearAfterMs of [300, 1_000]) {
        const filler = path.join(mnt, `brief-filler-${clearAfterMs}`);
        fill(filler, 12);
        // Post large batches, three at a time, until a write is refused (a 503) or hangs (PGlite stuck
        // on a failed WAL write): more WAL between two of the server's checkpoints than the recycled
        // segments hold, so PostgreSQL must make a new 16 MB segment, which the disk refuses...
        let refused = false;
        for (let i = 0; i < 40 && !refused; i++) {
          const batches = [nextBatch(500), nextBatch(500), nextBatch(500)];
          const answers = await Promise.all(batches.map((batch) => ingestBatch(s.base, batch, 3_000)));
          answers.forEach((r, n) => {
            if (r.status === 200) acknowledged.push(batches[n]!);
            else refused = true;
          });
        }
        expect(refused).toBe(true);
        // ... and the disk has room again a moment later.
        await sleep(clearAfterMs);
        rmSync(filler);
        let back = false;
        const until = Date.now() + 15_000;
        while (!back && Date.now() < until) {
          const batch = nextBatch();
          const r = await ingestBatch(s.base, batch, 6_000);
          back = r.status === 200;
          if (back) acknowledged.push(batch);
          else await sleep(300);
        }
        expect(
          back,
          `no recovery after a full disk cleared in ${clearAfterMs} ms:\n${s.output().slice(-2000)}`,
        ).toBe(true);
        // Health follows within a few seconds (a refused write counts for 2 s after it).
        const healthy = Date.now() + 5_000;
        while ((await timed(`${s.base}/api/health`)).status !== 200 && Date.now() < healthy) await sleep(200);
        expect((await timed(`${s.base}/api/health`)).status).toBe(200);
      }
      // Every acknowledged page is stored: sent again with its ids, each is a duplicate.
      for (const batch of acknowledged) {
        const again = await ingestBatch(s.base, batch, 6_000);
        expect(again.status).toBe(200);
        expect(JSON.parse(again.body).data.map((d: { status: string }) => d.status)).toEqual(
          batch.map(() => "duplicate"),
        );
      }
      s.child.kill("SIGTERM");
      const code = await Promise.race([s.exited, sleep(12_000).then(() => "hung" as const)]);
      expect(code, s.output().slice(-3000)).toBe(0);
      const lines = s.output().split("\n");
      expect(lines.filter((l) => l.includes("database cannot write")).length).toBeGreaterThanOrEqual(1);
      expect(lines.filter((l) => l.includes("DISKPROBE"))).toEqual([]);
      expect(lines.filter((l) => l.includes('"statusCode":500'))).toEqual([]);
      rmSync(path.join(mnt, "data"), { recursive: true, force: true });
    }, 120_000);

    it("ends an embedded database stuck on a full disk and opens it again once there is room", async () => {
      const dir = path.join(mnt, "stuck");
      const reachability = new DatabaseReachability();
      const db = await EmbeddedDatabase.open(dir, reachability);
      try {
        const filler = path.join(mnt, "filler2");
        fill(filler);
        // A query that runs far longer than the watchdog allows on a full disk (what a failed WAL write looks like).
        const t = Date.now();
        const stuck = await db.query("do $$ begin loop end loop; end $$").catch((e: Error) => e);
        expect(stuck).toBeInstanceOf(Error);
        expect(Date.now() - t).toBeLessThan(5_000);
        expect(String(stuck)).toMatch(/disk is full/);
        expect(reachability.storage().writable).toBe(false);
        rmSync(filler);
        const back = Date.now() + 20_000;
        let answer: unknown = null;
        while (!answer && Date.now() < back) {
          answer = await db.query<{ x: number }>("select 1 as x").then(
            (r) => r.rows[0],
            () => null,
          );
          if (!answer) await sleep(300);
        }
        expect(answer).toEqual({ x: 1 });
      } finally {
        await db.close();
      }
    }, 40_000);

    it("refuses to start on a full disk and on a read-only one, saying so, with a non-zero exit", async () => {
      const filler = path.join(mnt, "filler3");
      fill(filler);
      const full = await start(path.join(mnt, "fresh"));
      expect(await full.exited).not.toBe(0);
      expect(full.output()).toMatch(/Turnout failed to start: .*(disk space|disk is full)/);
      rmSync(filler);

      expect(tryMount(roMnt, "size=1m,ro")).toBe(true);
      const readOnly = await start(path.join(roMnt, "data"));
      expect(await readOnly.exited).not.toBe(0);
      expect(readOnly.output()).toMatch(/Turnout failed to start: .*read-only/);
    }, 60_000);
  },
);
