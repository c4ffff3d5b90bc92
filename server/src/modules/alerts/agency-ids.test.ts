import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testEngine } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { agencies, alertRecipients, capcodes } from "../../db/schema.js";

// alerts.agency_ids (migration 0006) is what a viewer's agency scope reads, so it must always equal
// the agencies of the alert's recipients: these tests change alert_recipients in every way the app
// does (ingest, copies paged to more capcodes, capcode moves and deletes) and a few it does not, and
// check the column after each, against the recipients themselves.

const KEY = "test-ingest-key-agency-ids-0123";
let app: TestApp;
const ids: Record<string, number> = {};
let frvToken: string;

type Row = Record<string, unknown>;
const rows = async <T = Row>(query: ReturnType<typeof sql>) =>
  ((await app.db.execute(query)) as unknown as { rows: T[] }).rows;

/** The ids of these agencies (codes), ascending, as agency_ids keeps them. */
const sortedIds = (...codes: string[]) => codes.map((c) => ids[c]!).sort((a, b) => a - b);

/** The alert's agency_ids as stored. */
async function agencyIds(alertId: number): Promise<number[]> {
  const [row] = await rows<{ agency_ids: number[] }>(
    sql`SELECT agency_ids FROM alerts WHERE id = ${alertId}`,
  );
  return row!.agency_ids.map(Number);
}

/** The alert's row version (changes only when the row is written). */
async function version(alertId: number): Promise<string> {
  const [row] = await rows<{ v: string }>(sql`SELECT xmin::text AS v FROM alerts WHERE id = ${alertId}`);
  return row!.v;
}

/** Every alert whose agency_ids differs from its recipients' agencies (distinct, ascending). */
async function mismatches() {
  return rows(sql`
    SELECT a.id, a.agency_ids, ARRAY(SELECT DISTINCT r.agency_id FROM alert_recipients r
                                      WHERE r.alert_id = a.id ORDER BY 1) AS recipients
      FROM alerts a
     WHERE a.agency_ids IS DISTINCT FROM ARRAY(SELECT DISTINCT r.agency_id FROM alert_recipients r
                                                WHERE r.alert_id = a.id ORDER BY 1)`);
}

const ingest = (messages: { capcode: string; message: string }[]) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });

const admin = (method: "POST" | "PUT" | "DELETE", url: string, token: string, payload?: object) =>
  app.inject({
    method,
    url: `/api${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

let adminToken: string;
let seq = 0;
function turnout() {
  seq += 1;
  return `@@ALERT F2512${String(10000 + seq).padStart(5, "0")} BRAV2 STRUC1 SHED FIRE ${seq} EXAMPLE RD SOMEVILLE M 45 C7 [BRAV]`;
}

let nextCapcode = 3_100_000;
async function capcode(agencyCode: string) {
  nextCapcode += 1;
  const [row] = await app.db
    .insert(capcodes)
    .values({ capcode: String(nextCapcode).padStart(7, "0"), agencyId: ids[agencyCode]! })
    .returning();
  return row!;
}

/** Ingests one message, paged to one capcode or several (copies in one batch); its alert's id. */
async function ingestOne(capcodeNumbers: string | string[], text = turnout()): Promise<number> {
  const res = await ingest([capcodeNumbers].flat().map((capcode) => ({ capcode, message: text })));
  expect(res.statusCode).toBe(200);
  return res.json().data[0].id as number;
}

/** Alert ids a user finds by searching their own feed. */
async function found(token: string, search: string): Promise<number[]> {
  const res = await app.inject({
    method: "GET",
    url: `/api/alerts/search?search=${encodeURIComponent(search)}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data.map((a: { id: number }) => a.id);
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const a of await app.db.select().from(agencies)) ids[a.code] = a.id;
  adminToken = await signIn(app, (await createUser(app, { isAdmin: true })).phone);
  frvToken = await signIn(app, (await createUser(app, { agencyCodes: ["FRV"] })).phone);
});
afterAll(() => app.cleanup());

describe("alerts.agency_ids", () => {
  it("is the capcode's agency on a new alert", async () => {
    const cfa = await capcode("CFA");
    const id = await ingestOne(cfa.capcode);
    expect(await agencyIds(id)).toEqual(sortedIds("CFA"));
    expect(await mismatches()).toEqual([]);
  });

  it("takes another agency when a copy is paged to its capcode, in the same batch or later", async () => {
    const [cfa, frv, ses] = [await capcode("CFA"), await capcode("FRV"), await capcode("SES")];
    const text = turnout();
    const res = await ingest([
      { capcode: frv.capcode, message: text },
      { capcode: cfa.capcode, message: text },
    ]);
    const [first, second] = res.json().data;
    expect(second).toEqual({ id: first.id, status: "merged" });
    expect(await agencyIds(first.id)).toEqual(sortedIds("CFA", "FRV"));

    const later = await ingest([{ capcode: ses.capcode, message: text }]);
    expect(later.json().data[0]).toEqual({ id: first.id, status: "merged" });
    expect(await agencyIds(first.id)).toEqual(sortedIds("CFA", "FRV", "SES"));
    expect(await mismatches()).toEqual([]);
  });

  it("does not write the alert again for a duplicate or a recipient of an agency it already has", async () => {
    const [cfa, otherCfa] = [await capcode("CFA"), await capcode("CFA")];
    const text = turnout();
    const id = await ingestOne(cfa.capcode, text);
    const before = await version(id);
    expect((await ingest([{ capcode: cfa.capcode, message: text }])).json().data[0].status).toBe("duplicate");
    expect((await ingest([{ capcode: otherCfa.capcode, message: text }])).json().data[0].status).toBe(
      "merged",
    );
    expect(await version(id)).toBe(before);
    expect(await agencyIds(id)).toEqual(sortedIds("CFA"));
  });

  it("follows a capcode assigned from UNMAPPED, so the new agency's users find its alerts", async () => {
    const text = `${turnout()} ASSIGNWORD`;
    nextCapcode += 1;
    const unknownCapcode = String(nextCapcode);
    const alone = await ingestOne(unknownCapcode, text);
    const cfa = await capcode("CFA");
    const shared = `${turnout()} ASSIGNWORD`;
    const both = await ingestOne(cfa.capcode, shared);
    await ingest([{ capcode: unknownCapcode, message: shared }]);
    expect(await agencyIds(alone)).toEqual(sortedIds("UNMAPPED"));
    expect(await found(frvToken, "ASSIGNWORD")).toEqual([]);

    const [row] = await app.db
      .select()
      .from(capcodes)
      .where(eq(capcodes.capcode, unknownCapcode.padStart(7, "0")));
    const res = await admin("POST", `/admin/capcodes/${row!.id}/assign`, adminToken, { agency_id: ids.FRV });
    expect(res.statusCode).toBe(200);
    expect(await agencyIds(alone)).toEqual(sortedIds("FRV"));
    expect(await agencyIds(both)).toEqual(sortedIds("CFA", "FRV"));
    expect(await found(frvToken, "ASSIGNWORD")).toEqual([both, alone]);
    expect(await mismatches()).toEqual([]);
  });

  it("follows a capcode moved by an update or by an agency's bulk list, and keeps one deleted", async () => {
    const [moved, listed, deleted, kept] = [
      await capcode("SES"),
      await capcode("SES"),
      await capcode("SES"),
      await capcode("CFA"),
    ];
    const text = turnout();
    const res = await ingest(
      [moved, listed, deleted, kept].map((c) => ({ capcode: c.capcode, message: text })),
    );
    const id = res.json().data[0].id as number;
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "SES"));

    expect(
      (await admin("PUT", `/admin/capcodes/${moved.id}`, adminToken, { agency_id: ids.FRV })).statusCode,
    ).toBe(200);
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV", "SES"));
    const bulk = await admin("POST", `/admin/agencies/${ids.Other}/capcodes/bulk`, adminToken, {
      capcodes: [{ capcode: listed.capcode }],
    });
    expect(bulk.json().data).toMatchObject({ moved: 1 });
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV", "Other", "SES"));
    // A deleted capcode stays a recipient of what it received: deleting only affects what comes next.
    expect((await admin("DELETE", `/admin/capcodes/${deleted.id}`, adminToken)).statusCode).toBe(200);
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV", "Other", "SES"));
    expect((await admin("DELETE", `/admin/capcodes/${kept.id}`, adminToken)).statusCode).toBe(200);
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV", "Other", "SES"));
    expect(await mismatches()).toEqual([]);
  });

  it("follows statements that change many alerts' recipients at once, and only writes alerts that change", async () => {
    const [cfa, ses] = [await capcode("CFA"), await capcode("SES")];
    const alertIds: number[] = [];
    for (let i = 0; i < 5; i++) alertIds.push(await ingestOne(cfa.capcode));
    const untouched = await ingestOne(cfa.capcode);
    const before = await version(untouched);
    const list = sql.join(
      alertIds.map((id) => sql`${id}`),
      sql`, `,
    );
    await app.db.execute(sql`
      INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
      SELECT id, ${ses.id}, ${ses.agencyId} FROM alerts WHERE id IN (${list})`);
    expect(await mismatches()).toEqual([]);
    expect(await agencyIds(alertIds[0]!)).toEqual(sortedIds("CFA", "SES"));
    // An update that leaves every agency where it was writes no alert.
    const unchanged = await version(alertIds[1]!);
    await app.db.execute(sql`UPDATE alert_recipients SET agency_id = agency_id WHERE alert_id IN (${list})`);
    expect(await version(alertIds[1]!)).toBe(unchanged);
    await app.db.execute(
      sql`UPDATE alert_recipients SET agency_id = ${ids.FRV} WHERE capcode_id = ${ses.id} AND alert_id IN (${list})`,
    );
    expect(await agencyIds(alertIds[2]!)).toEqual(sortedIds("CFA", "FRV"));
    await app.db.execute(sql`DELETE FROM alert_recipients WHERE alert_id IN (${list})`);
    expect(await agencyIds(alertIds[3]!)).toEqual([]);
    expect(await mismatches()).toEqual([]);
    expect(await version(untouched)).toBe(before);
    // Deleting alerts takes their recipients with them, and the trigger copes with the alerts gone.
    await app.db.execute(sql`DELETE FROM alerts WHERE id IN (${list})`);
    expect(await mismatches()).toEqual([]);
  });
});

describe.skipIf(testEngine !== "postgres")("alerts.agency_ids under concurrent transactions", () => {
  /** Runs `first` in a transaction that stays open until `second` (in another) waits for its lock. */
  async function overlapping(
    first: (tx: TestApp["db"]) => Promise<unknown>,
    second: (tx: TestApp["db"]) => Promise<unknown>,
  ) {
    let firstDone!: () => void;
    const firstWrote = new Promise<void>((r) => {
      firstDone = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const one = app.db.transaction(async (tx) => {
      await first(tx);
      firstDone();
      await released;
    });
    await firstWrote;
    const two = app.db.transaction(async (tx) => {
      await second(tx);
    });
    // Wait (up to 2 s) until the second transaction is blocked on a lock, then let the first commit.
    let waiting = 0;
    for (let i = 0; i < 100 && waiting === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const [row] = await rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      waiting = row!.n;
    }
    release();
    await Promise.all([one, two]);
    expect(waiting).toBe(1);
  }

  it("keeps both agencies when two transactions add copies of one alert for different agencies", async () => {
    const [cfa, frv, ses] = [await capcode("CFA"), await capcode("FRV"), await capcode("SES")];
    const id = await ingestOne(cfa.capcode);
    await overlapping(
      (tx) => tx.insert(alertRecipients).values({ alertId: id, capcodeId: frv.id, agencyId: frv.agencyId }),
      (tx) => tx.insert(alertRecipients).values({ alertId: id, capcodeId: ses.id, agencyId: ses.agencyId }),
    );
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV", "SES"));
  });

  it("keeps an agency one transaction adds a recipient of while another removes its other one", async () => {
    const [cfa, frv, otherFrv] = [await capcode("CFA"), await capcode("FRV"), await capcode("FRV")];
    const id = await ingestOne([cfa.capcode, frv.capcode]);
    await overlapping(
      (tx) =>
        tx
          .insert(alertRecipients)
          .values({ alertId: id, capcodeId: otherFrv.id, agencyId: otherFrv.agencyId }),
      (tx) => tx.execute(sql`DELETE FROM alert_recipients WHERE alert_id = ${id} AND capcode_id = ${frv.id}`),
    );
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV"));
    expect(await mismatches()).toEqual([]);
  });

  it("keeps an agency one transaction removes a recipient of while another adds a new one", async () => {
    const [cfa, frv, otherFrv] = [await capcode("CFA"), await capcode("FRV"), await capcode("FRV")];
    const id = await ingestOne([cfa.capcode, frv.capcode]);
    await overlapping(
      (tx) => tx.execute(sql`DELETE FROM alert_recipients WHERE alert_id = ${id} AND capcode_id = ${frv.id}`),
      (tx) =>
        tx
          .insert(alertRecipients)
          .values({ alertId: id, capcodeId: otherFrv.id, agencyId: otherFrv.agencyId }),
    );
    expect(await agencyIds(id)).toEqual(sortedIds("CFA", "FRV"));
    expect(await mismatches()).toEqual([]);
  });
});

describe("alerts.agency_ids after TRUNCATE", () => {
  // Last in the file: it empties alert_recipients.
  it("is '{}' for every alert once alert_recipients is truncated", async () => {
    await app.db.execute(sql`TRUNCATE alert_recipients`);
    expect(await rows(sql`SELECT id FROM alerts WHERE agency_ids <> '{}'`)).toEqual([]);
  });
});
