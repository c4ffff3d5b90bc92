import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase } from "../test/build-app.js";
import type { DatabaseHandle } from "./db/client.js";
import { rowsOf } from "./db/rows.js";
import { DatabaseUpkeep } from "./db/upkeep.js";
import { pruneSystemLog, SYSTEM_LOG_RETENTION, writeSystemLog } from "./system-log.js";

// The system log is bounded: entries past 90 days and beyond the newest 100,000 are removed by the
// database upkeep, so an attack (a warning per refused code) cannot fill the disk with it.

describe("the system log's retention", () => {
  let handle: DatabaseHandle;
  const now = new Date("2026-11-29T00:00:00Z");

  beforeAll(async () => {
    handle = await openTestDatabase();
  });
  afterAll(async () => {
    await handle?.close();
  });
  beforeEach(async () => {
    await handle.db.execute(sql`DELETE FROM system_logs`);
  });

  /** `count` entries `daysAgo` days before `now`, messages `${label} 1` ... */
  async function entries(count: number, daysAgo: number, label: string) {
    const at = new Date(now.getTime() - daysAgo * 86_400_000).toISOString();
    await handle.db.execute(sql`
      INSERT INTO system_logs (level, category, message, timestamp)
      SELECT 'warn', 'security', ${label} || ' ' || g, ${at}::timestamptz FROM generate_series(1, ${count}) AS g`);
  }

  const messages = async () =>
    rowsOf<{ message: string }>(
      await handle.db.execute(sql`SELECT message FROM system_logs ORDER BY id`),
    ).map((r) => r.message);

  it("removes the entries older than its days and keeps the rest", async () => {
    await entries(3, SYSTEM_LOG_RETENTION.days + 1, "old");
    await entries(2, SYSTEM_LOG_RETENTION.days - 1, "kept");
    await writeSystemLog(handle.db, { level: "info", category: "server", message: "today" });
    expect(await pruneSystemLog(handle.db, SYSTEM_LOG_RETENTION, now)).toBe(3);
    expect(await messages()).toEqual(["kept 1", "kept 2", "today"]);
    expect(await pruneSystemLog(handle.db, SYSTEM_LOG_RETENTION, now)).toBe(0);
  });

  it("keeps only the newest entries past its cap, whatever their age, a backlog over several statements", async () => {
    await entries(12_000, 1, "burst");
    await entries(3, 0, "newest");
    expect(await pruneSystemLog(handle.db, { days: SYSTEM_LOG_RETENTION.days, entries: 1_000 }, now)).toBe(
      11_003,
    );
    const left = await messages();
    expect(left).toHaveLength(1_000);
    expect(left.slice(0, 2)).toEqual(["burst 11004", "burst 11005"]);
    expect(left.slice(-3)).toEqual(["newest 1", "newest 2", "newest 3"]);
  });

  it("is pruned by the database upkeep on every engine, autovacuum or not", async () => {
    await entries(4, SYSTEM_LOG_RETENTION.days + 10, "old");
    const logged: { rows?: number; msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const upkeep = new DatabaseUpkeep({
      db: handle.db,
      kind: handle.kind,
      logger,
      pollMs: 20,
      prune: () => pruneSystemLog(handle.db),
    });
    upkeep.start();
    try {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && !logged.some((l) => l.rows !== undefined))
        await new Promise((r) => setTimeout(r, 20));
    } finally {
      await upkeep.stop();
    }
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: "database upkeep: rows past retention removed", rows: 4 }),
    );
    expect(await messages()).toEqual([]);
  });
});
