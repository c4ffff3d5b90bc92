import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";

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
    expect(entry.err.message).toMatch(/function ingest_messages\(jsonb\) does not exist/);
    expect(lines.filter((l) => l.includes("PRIVATETEXT"))).toEqual([]);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(10_000);
  });
});
