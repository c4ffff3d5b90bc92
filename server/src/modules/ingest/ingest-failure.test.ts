import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { systemLogs } from "../../db/schema.js";

const KEY = "ingest-failure-test-key-0123456789";

describe("an ingest batch the database fails", () => {
  let app: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp(
      { INGEST_API_KEY: KEY, LOG_LEVEL: "info" },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    // Every ingest now fails inside the database, with the whole batch as the query's parameter.
    await app.db.execute(sql`ALTER FUNCTION ingest_messages(jsonb) RENAME TO ingest_messages_gone`);
  });
  afterAll(() => app.cleanup());

  it("is logged in one short line with its size, source and ids, never its message texts", async () => {
    const messages = Array.from({ length: 200 }, (_, i) => ({
      capcode: "0123456",
      message: `@@ALERT F25110${String(i).padStart(4, "0")} PRIVATETEXT ${"X".repeat(1500)}`,
      source: "rx-north",
      id: `rx-${i}`,
    }));
    const res = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { "x-api-key": KEY },
      payload: { messages },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ success: false, errorType: "internal_error" });

    const failed = lines.filter((l) => l.includes("ingest batch failed"));
    expect(failed).toHaveLength(1);
    const entry = JSON.parse(failed[0]!);
    expect(entry.batch).toMatchObject({ size: 200, sources: ["rx-north"], idsNotShown: 150 });
    expect(entry.batch.ids.slice(0, 2)).toEqual(["rx-0", "rx-1"]);
    // The query and the database's reason stay readable; the batch (the query's one parameter) does not.
    expect(entry.err.params).toBe("[1 redacted]");
    expect(entry.err.cause.message).toMatch(/function ingest_messages\(jsonb\) does not exist/);
    expect(lines.filter((l) => l.includes("PRIVATETEXT"))).toEqual([]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(10_000);
    // Nor in the system log admins read: the 500's entry names the query, not the batch.
    // Written after the reply, so waited for.
    const entries = await vi.waitFor(async () => {
      const rows = await app.db.select().from(systemLogs).where(eq(systemLogs.category, "server"));
      expect(rows.map((e) => e.message).join("\n")).toMatch(/ingest_messages/);
      return rows;
    });
    expect(JSON.stringify(entries)).not.toContain("PRIVATETEXT");
  });
});
