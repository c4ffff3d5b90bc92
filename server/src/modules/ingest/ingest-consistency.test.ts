import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { agencies, capcodes } from "../../db/schema.js";

const KEY = "ingest-concurrency-key-0001";
let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  const [cfa] = await app.db.select().from(agencies).where(sql`${agencies.code} = 'CFA'`);
  await app.db.insert(capcodes).values(
    Array.from({ length: 8 }, (_, i) => ({
      capcode: `07000${String(i).padStart(2, "0")}`,
      agencyId: cfa!.id,
    })),
  );
});
afterAll(() => app.cleanup());

const post = (messages: { capcode: string; message: string; id?: string; source?: string }[]) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });

const count = async (q: ReturnType<typeof sql>) =>
  Number(((await app.db.execute(q)) as unknown as { rows: { n: number | string }[] }).rows[0]!.n);

describe("ingest consistency", () => {
  it("stores each text once and each job in one group when receivers send the same batch at once", async () => {
    // Eight receivers hear the same 20 messages (two per job) on their own capcode, at the same moment.
    const texts = Array.from({ length: 20 }, (_, i) => {
      const job = `F2599${String(Math.floor(i / 2)).padStart(5, "0")}`;
      return i % 2 === 0
        ? `@@ALERT ${job} CONC1 STRUC1 HOUSE FIRE ${i} RACE ST SOMEVILLE M 1 A1`
        : `HbCCONC - STRUC1 HOUSE FIRE ${i} RACE ST SOMEVILLE M 1 A1 ${job}`;
    });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, r) =>
        post(texts.map((message) => ({ capcode: `07000${String(r).padStart(2, "0")}`, message }))),
      ),
    );
    for (const res of replies) expect(res.statusCode).toBe(200);
    const statuses = replies.flatMap((res) => (res.json().data as { status: string }[]).map((d) => d.status));
    expect(statuses.filter((s) => s === "created")).toHaveLength(20);
    expect(statuses.filter((s) => s === "merged")).toHaveLength(20 * 7);
    expect(await count(sql`SELECT count(*) AS n FROM alerts WHERE message LIKE '%RACE ST%'`)).toBe(20);
    expect(
      await count(sql`SELECT count(*) AS n FROM alert_recipients r JOIN alerts a ON a.id = r.alert_id
                       WHERE a.message LIKE '%RACE ST%'`),
    ).toBe(160);
    expect(await count(sql`SELECT count(*) AS n FROM alert_groups WHERE job_number LIKE 'F2599%'`)).toBe(10);
    expect(
      await count(
        sql`SELECT count(*) AS n FROM alert_groups WHERE job_number LIKE 'F2599%' AND message_count <> 2`,
      ),
    ).toBe(0);
  });

  it("stores a batch retried concurrently once (same source and ids)", async () => {
    const batch = Array.from({ length: 10 }, (_, i) => ({
      capcode: "0700000",
      message: `@@ALERT F2598${String(i).padStart(5, "0")} RETRY1 ALARC1 AFA ${i} RETRY RD SOMEVILLE`,
      id: `retry-${i}`,
      source: "receiver-a",
    }));
    const replies = await Promise.all([post(batch), post(batch), post(batch)]);
    const ids = replies.map((res) => (res.json().data as { id: number }[]).map((d) => d.id));
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[2]).toEqual(ids[0]);
    expect(await count(sql`SELECT count(*) AS n FROM alerts WHERE message LIKE '%RETRY RD%'`)).toBe(10);
  });

  it("applies a grouping change made after the last ingest to the very next message", async () => {
    const text = (n: number) => `@@ALERT OPS${n} CHG1 ALARC1 AFA ${n} CHANGE ST SOMEVILLE`;
    const first = await post([{ capcode: "0700001", message: text(1111) }]);
    expect(first.json().data[0].status).toBe("created");
    const groupOf = async (n: number) =>
      (
        (await app.db.execute(
          sql`SELECT job_number FROM alerts WHERE message = ${text(n).slice(2)}`,
        )) as unknown as { rows: { job_number: string | null }[] }
      ).rows[0]!.job_number;
    expect(await groupOf(1111)).toBeNull();

    // A pattern added behind the server's back (straight into the table) still applies at once.
    await app.db.execute(
      sql`INSERT INTO grouping_patterns (name, pattern, priority) VALUES ('Ops', 'OPS(\\d{4})', 1)`,
    );
    await post([{ capcode: "0700001", message: text(2222) }]);
    expect(await groupOf(2222)).toBe("2222");

    // So does the duplicate window: 0 stores every copy.
    await app.db.execute(
      sql`UPDATE grouping_settings SET value = '0' WHERE key = 'duplicate_window_seconds'`,
    );
    const again = await post([{ capcode: "0700002", message: text(2222) }]);
    expect(again.json().data[0].status).toBe("created");
    await app.db.execute(sql`DELETE FROM grouping_patterns WHERE name = 'Ops'`);
    await app.db.execute(
      sql`UPDATE grouping_settings SET value = '300' WHERE key = 'duplicate_window_seconds'`,
    );
    await post([{ capcode: "0700001", message: text(3333) }]);
    expect(await groupOf(3333)).toBeNull();
  });
});
