import { inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testEngine } from "../../../test/build-app.js";
import { alerts } from "../../db/schema.js";

// Receivers posting at once share writes (ingestMessages' WriteQueue): these tests send many requests
// together and check what each sender is told and what is stored.

const KEY = "group-commit-test-key-0123456789";
let app: TestApp;
let seq = 0;

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
});
afterAll(() => app.cleanup());

/** A distinct turnout naming `token`. */
function turnout(token: string) {
  seq += 1;
  return `@@ALERT F25${String(3_000_000 + seq)} STRUC1 SHED FIRE ${token} EXAMPLE RD`;
}

/** One message per request, as PagerMon's readers send them; the reply is the alert id or 'Ignoring duplicate'. */
const pagermon = (capcode: string, message: string) =>
  app.inject({
    method: "POST",
    url: "/api/messages",
    headers: { apikey: KEY },
    payload: { address: capcode, message },
  });

const stored = async (ids: number[]) =>
  (await app.db
    .select({ id: alerts.id, message: alerts.message, xmin: sql<string>`${alerts}.xmin::text` })
    .from(alerts)
    .where(inArray(alerts.id, ids))) as { id: number; message: string; xmin: string }[];

describe("receivers posting at the same time", () => {
  it("each get the id of their own message, sharing transactions", async () => {
    const tokens = Array.from({ length: 24 }, (_, i) => `SENDER${i}X`);
    const replies = await Promise.all(tokens.map((token) => pagermon("0910001", turnout(token))));
    expect(replies.map((r) => r.statusCode)).toEqual(tokens.map(() => 200));
    const ids = replies.map((r) => Number(r.body));
    const rows = new Map((await stored(ids)).map((row) => [row.id, row]));
    for (const [i, token] of tokens.entries()) expect(rows.get(ids[i]!)?.message).toContain(token);
    // On PostgreSQL, written in fewer commits than messages: later senders waited and went together.
    // (The embedded database answers within the same turn of the event loop, before others arrive.)
    if (testEngine === "postgres")
      expect(new Set([...rows.values()].map((row) => row.xmin)).size).toBeLessThan(tokens.length);
  });

  it("are told 'duplicate' for a copy that another sender's message in the same write stored", async () => {
    const text = turnout("COPYX");
    const replies = await Promise.all([
      pagermon("0910002", turnout("FIRSTX")),
      pagermon("0910002", text),
      pagermon("0910002", text),
      pagermon("0910002", text),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const bodies = replies.slice(1).map((r) => r.body);
    expect(bodies.filter((b) => b === "Ignoring duplicate")).toHaveLength(2);
    const [id] = bodies.filter((b) => b !== "Ignoring duplicate").map(Number);
    expect((await stored([id!]))[0]?.message).toContain("COPYX");
  });

  it("lose only the message the database refuses: the others sharing its write are stored", async () => {
    // The database refuses messages naming POISON, as it might refuse one bad row of a shared write.
    await app.db.execute(
      sql`ALTER TABLE alerts ADD CONSTRAINT alerts_test_poison CHECK (message NOT LIKE '%POISON%') NOT VALID`,
    );
    try {
      const tokens = Array.from({ length: 12 }, (_, i) => (i === 5 ? "POISON" : `GOOD${i}X`));
      const replies = await Promise.all(
        tokens.map((token) =>
          app.inject({
            method: "POST",
            url: "/api/ingest/messages",
            headers: { "x-api-key": KEY },
            payload: { messages: [{ capcode: "0910003", message: turnout(token) }] },
          }),
        ),
      );
      expect(replies.map((r) => r.statusCode)).toEqual(tokens.map((t) => (t === "POISON" ? 500 : 200)));
      const ids = replies.filter((r) => r.statusCode === 200).map((r) => r.json().data[0].id as number);
      const rows = new Map((await stored(ids)).map((row) => [row.id, row.message]));
      const good = tokens.filter((t) => t !== "POISON");
      for (const [i, token] of good.entries()) expect(rows.get(ids[i]!)).toContain(token);
    } finally {
      await app.db.execute(sql`ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_test_poison`);
    }
  });
});
