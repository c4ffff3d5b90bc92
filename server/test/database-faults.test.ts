import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "./build-app.js";
import { createScratchDatabase } from "./scratch-database.js";
import { freePort, spawnServer } from "./server-process.js";

// A PostgreSQL restart, simulated on the shared test server without restarting it: the server's
// backends are terminated (what a restart does to every connection) under ingest, then new
// connections to its database are refused for a few seconds (an outage).

const INGEST_KEY = "fault-test-ingest-key-0123456789";
/** In every message text, so the log can be searched for any text that leaked into it. */
const TEXT_MARK = "FAULTPROBE";
const OUTAGE_MS = 4_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(testEngine !== "postgres")("the server when PostgreSQL restarts or stops", () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let admin: pg.Client;
  let dbName: string;
  let child: ChildProcess;
  let output = () => "";
  let exited: number | null | "running" = "running";
  let base: string;
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-dbfaults-"));

  beforeAll(async () => {
    const baseUrl = process.env.DATABASE_URL!;
    scratch = await createScratchDatabase(baseUrl);
    dbName = new URL(scratch.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    const server = spawnServer(await freePort(), {
      DATA_DIR: dataDir,
      DATABASE_URL: scratch.url,
      INGEST_API_KEY: INGEST_KEY,
      LOG_LEVEL: "info",
    });
    ({ child, base } = server);
    output = server.output;
    child.once("exit", (code) => (exited = code));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (exited !== "running") throw new Error(`exited early:\n${output()}`);
      if ((await health()) === 200) return;
      await sleep(200);
    }
    throw new Error(`not healthy in time:\n${output()}`);
  }, 90_000);

  afterAll(async () => {
    child?.kill("SIGKILL");
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await scratch?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const health = () =>
    fetch(`${base}/api/health`)
      .then((r) => r.status)
      .catch(() => 0);

  const terminateBackends = () =>
    admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [dbName],
    );

  it("survives terminated connections and an outage: 503 with Retry-After meanwhile, nothing acknowledged lost, one log line per outage", async () => {
    const answers = new Map<number | string, number>();
    const missingRetryAfter: number[] = [];
    const acknowledged = new Set<string>();
    let sending = true;

    // A receiver: batches of messages with ids, each batch sent again (same ids) until acknowledged.
    const sender = async (lane: number) => {
      for (let batch = 0; sending; batch++) {
        const messages = Array.from({ length: 5 }, (_, i) => ({
          capcode: "0123456",
          message: `${TEXT_MARK} lane ${lane} batch ${batch} message ${i} STRUC1 HOUSE FIRE`,
          id: `l${lane}-b${batch}-m${i}`,
          source: "fault-test",
        }));
        for (;;) {
          const res = await fetch(`${base}/api/ingest/messages`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": INGEST_KEY },
            body: JSON.stringify({ messages }),
          }).catch((err: Error) => err);
          const status = res instanceof Error ? "network error" : res.status;
          answers.set(status, (answers.get(status) ?? 0) + 1);
          if (res instanceof Response && res.ok) {
            for (const m of messages) acknowledged.add(m.id);
            break;
          }
          if (res instanceof Response && res.status === 503 && !res.headers.get("retry-after"))
            missingRetryAfter.push(res.status);
          // The receiver honours Retry-After; the test waits less to stay short.
          await sleep(150);
          if (!sending && exited !== "running") return;
        }
      }
    };
    const senders = [0, 1, 2].map(sender);

    // A restart, three times: every connection the server holds is terminated under load.
    for (let round = 0; round < 3; round++) {
      await sleep(700);
      await terminateBackends();
    }
    await sleep(700);

    // An outage: no new connection is accepted, and the open ones are gone.
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await terminateBackends();
    const healthDuring: number[] = [];
    const outageEnds = Date.now() + OUTAGE_MS;
    while (Date.now() < outageEnds) {
      healthDuring.push(await health());
      await sleep(300);
    }
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    const backAt = Date.now();
    while ((await health()) !== 200 && Date.now() - backAt < 10_000) await sleep(100);
    const recoveredInMs = Date.now() - backAt;

    // Ingest works again: a few more batches go through after the outage.
    const okBefore = answers.get(200) ?? 0;
    const deadline = Date.now() + 5_000;
    while ((answers.get(200) ?? 0) < okBefore + 6 && Date.now() < deadline) await sleep(100);
    sending = false;
    await Promise.all(senders);

    expect(exited).toBe("running");
    expect(healthDuring.filter((s) => s === 503).length).toBeGreaterThan(healthDuring.length / 2);
    expect(healthDuring).not.toContain(200);
    expect(recoveredInMs).toBeLessThan(5_000);
    expect(answers.get(200) ?? 0).toBeGreaterThanOrEqual(okBefore + 6);
    // Only acknowledgements and polite refusals: never a 500, never a dropped connection.
    expect([...answers.keys()].sort()).toEqual(answers.has(503) ? [200, 503] : [200]);
    expect(answers.get(503) ?? 0).toBeGreaterThan(0);
    expect(missingRetryAfter).toEqual([]);

    const check = new pg.Client({ connectionString: scratch.url });
    await check.connect();
    const stored = await check
      .query<{ id: string; copies: string }>(
        "SELECT source_message_id AS id, count(*) AS copies FROM alerts WHERE source = 'fault-test' GROUP BY 1",
      )
      .finally(() => check.end());
    const copies = new Map(stored.rows.map((r) => [r.id, Number(r.copies)]));
    const lost = [...acknowledged].filter((id) => copies.get(id) !== 1);
    expect(acknowledged.size).toBeGreaterThan(0);
    expect(lost).toEqual([]);

    const lines = output().split("\n");
    const unreachable = lines.filter((l) => l.includes("database unreachable"));
    // One per disruption at most (three terminations and the outage), however many requests failed.
    expect(unreachable.length).toBeGreaterThanOrEqual(1);
    expect(unreachable.length).toBeLessThanOrEqual(4);
    expect(unreachable.length).toBeLessThan(answers.get(503) ?? 0);
    expect(lines.filter((l) => l.includes("database reachable again")).length).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => l.includes(TEXT_MARK))).toEqual([]);
    expect(lines.filter((l) => l.includes('"statusCode":500'))).toEqual([]);
  }, 60_000);
});
