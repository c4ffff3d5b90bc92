import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser } from "../../../test/factories.js";
import { agencies, alerts, capcodes, ingestMessageIds, smsQueue, userAlertRules } from "../../db/schema.js";
import { rulesChanged } from "../rules/matcher.js";

/**
 * Issue 14, "exactly once, also late": a batch holding the same text for two capcodes is one alert
 * (the second copy merged into the first). Retried with the same ids after the duplicate window, it
 * used to store the merged copy again as a new alert and send its keyword SMS again.
 */
const KEY = "ingest-late-retry-key-0001";
let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const [capcode, code] of [
    ["0810001", "CFA"],
    ["0810002", "SES"],
  ] as const) {
    const [agency] = await app.db.select().from(agencies).where(eq(agencies.code, code));
    await app.db.insert(capcodes).values({ capcode, agencyId: agency!.id });
    const user = await createUser(app, { agencyCodes: [code] });
    await app.db
      .insert(userAlertRules)
      .values({ userId: user.id, name: "Hay sheds", keywords: ["hayshed"], status: "approved" });
  }
  rulesChanged(app.services);
});
afterAll(() => app.cleanup());

const post = (messages: { capcode: string; message: string; id: string; source: string }[]) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });

async function ruleSmsCount(): Promise<number> {
  await app.ruleMatcher.runOnce();
  const rows = await app.db.select({ id: smsQueue.id }).from(smsQueue).where(eq(smsQueue.kind, "rule"));
  return rows.length;
}

async function alertCount(text: string): Promise<number> {
  const rows = await app.db
    .select({ id: alerts.id })
    .from(alerts)
    .where(sql`${alerts.message} LIKE ${`%${text}%`}`);
  return rows.length;
}

/** What the duplicate window sees once `seconds` have passed: every alert received that much earlier. */
async function age(text: string, seconds: number) {
  await app.db
    .update(alerts)
    .set({ createdAt: sql`${alerts.createdAt} - make_interval(secs => ${seconds})` })
    .where(sql`${alerts.message} LIKE ${`%${text}%`}`);
}

describe("a late retry of a merged batch", () => {
  it("stores nothing new and queues no SMS when the same ids come back after the duplicate window", async () => {
    const text = "@@ALERT F2510000001 STRUC1 HAYSHED FIRE LATE RETRY RD KYNETON";
    const batch = [
      { capcode: "0810001", message: text, id: "late-1", source: "rx-late" },
      { capcode: "0810002", message: text, id: "late-2", source: "rx-late" },
    ];
    const first = await post(batch);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((d: { status: string }) => d.status)).toEqual(["created", "merged"]);
    expect(await alertCount("LATE RETRY RD")).toBe(1);
    const smsBefore = await ruleSmsCount();
    expect(smsBefore).toBe(2);

    // Past the duplicate window (120 s by default), as a receiver's spool replayed an hour later.
    await age("LATE RETRY RD", 3600);
    const retry = await post(batch);
    expect(retry.statusCode).toBe(200);
    const alertId = first.json().data[0].id;
    expect(retry.json().data).toEqual([
      { id: alertId, status: "duplicate" },
      { id: alertId, status: "duplicate" },
    ]);
    expect(await alertCount("LATE RETRY RD")).toBe(1);
    expect(await ruleSmsCount()).toBe(smsBefore);
  });

  it("remembers the id of a copy that was a duplicate by text, and of each message of a batch", async () => {
    const text = "@@ALERT F2510000002 STRUC1 HAYSHED FIRE TEXT DUP RD KYNETON";
    // Two receivers hear the same page on the same capcode, with their own ids.
    await post([{ capcode: "0810001", message: text, id: "a-1", source: "rx-a" }]);
    const second = await post([{ capcode: "0810001", message: text, id: "b-1", source: "rx-b" }]);
    expect(second.json().data[0].status).toBe("duplicate");
    await age("TEXT DUP RD", 3600);

    const late = await post([{ capcode: "0810001", message: text, id: "b-1", source: "rx-b" }]);
    expect(late.json().data[0]).toEqual({ id: second.json().data[0].id, status: "duplicate" });
    expect(await alertCount("TEXT DUP RD")).toBe(1);
    const ids = await app.db
      .select()
      .from(ingestMessageIds)
      .where(sql`${ingestMessageIds.source} IN ('rx-a', 'rx-b')`);
    expect(ids.map((r) => `${r.source}/${r.messageId}`).sort()).toEqual(["rx-a/a-1", "rx-b/b-1"]);
  });

  it("forgets a message's id only with its alert", async () => {
    const text = "@@ALERT F2510000003 STRUC1 HAYSHED FIRE FORGET RD KYNETON";
    const res = await post([
      { capcode: "0810001", message: text, id: "f-1", source: "rx-forget" },
      { capcode: "0810002", message: text, id: "f-2", source: "rx-forget" },
    ]);
    const alertId = res.json().data[0].id;
    await app.db.delete(alerts).where(eq(alerts.id, alertId));
    const left = await app.db.select().from(ingestMessageIds).where(eq(ingestMessageIds.source, "rx-forget"));
    expect(left).toEqual([]);
  });
});
