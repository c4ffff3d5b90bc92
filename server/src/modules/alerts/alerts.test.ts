import { MESSAGES } from "@turnout/domain";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { agencies, capcodes, userFilters } from "../../db/schema.js";

const KEY = "alerts-test-ingest-key-000";
let app: TestApp;
const agencyId: Record<string, number> = {};
let cfaToken: string;
let sesToken: string;
let bothToken: string;
let adminToken: string;
let cfaUserId: number;

type Alert = { id: number; message: string; agency_code: string; type: string; group_id: number | null };

async function ingest(messages: { capcode: string; message: string; timestamp?: string }[]) {
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: number; status: string }[];
}

const get = (url: string, token: string) =>
  app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
const search = async (token: string, query: Record<string, string | number> = {}) => {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return get(`/api/alerts/search?${qs}`, token);
};

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  await app.db.insert(capcodes).values([
    { capcode: "0300001", agencyId: agencyId.CFA!, area: "Bendigo" },
    { capcode: "0300002", agencyId: agencyId.CFA!, area: "Ballarat" },
    { capcode: "0400001", agencyId: agencyId.SES!, area: "Geelong" },
  ]);
  const cfaUser = await createUser(app, { agencyCodes: ["CFA"] });
  cfaUserId = cfaUser.id;
  cfaToken = await signIn(app, cfaUser.phone);
  sesToken = await signIn(app, (await createUser(app, { agencyCodes: ["SES"] })).phone);
  bothToken = await signIn(app, (await createUser(app, { agencyCodes: ["CFA", "SES"] })).phone);
  adminToken = await signIn(app, (await createUser(app, { agencyCodes: [], isAdmin: true })).phone);

  await ingest([
    {
      capcode: "0300001",
      message: "@@ALERT F251100001 BEND1 STRUC1 HOUSE FIRE 1 HIGH ST BENDIGO /MAIN RD M 1 A1",
    },
    {
      capcode: "0300002",
      message: "Hb F251100002 BALL1 G&SC3 GRASS FIRE NEAR CREEK 5 LONG RD BALLARAT /X ST M 2 B2",
    },
    {
      capcode: "0400001",
      message: "@@ALERT S251100003 GEEL SES TREE DOWN ON CAR 9 BAY ST GEELONG /Y ST SVC 6608 E2",
    },
    { capcode: "0300001", message: "QD BRIGADE MEETING TONIGHT 1930 100% ATTENDANCE" },
    { capcode: "0999999", message: "@@ALERT UNKNOWN CAPCODE TEST FIRE" },
  ]);
});
afterAll(() => app.cleanup());

describe("GET /api/alerts/search", () => {
  it("shows a user only their agencies' alerts, newest first, with every SPEC 3 field", async () => {
    const res = await search(cfaToken);
    expect(res.statusCode).toBe(200);
    const data = res.json().data as Alert[];
    expect(data.map((a) => a.agency_code)).toEqual(["CFA", "CFA", "CFA"]);
    expect(data[0]!.message).toBe("BRIGADE MEETING TONIGHT 1930 100% ATTENDANCE");
    expect(Object.keys(data[2]!)).toEqual(
      expect.arrayContaining([
        "id",
        "type",
        "message",
        "created_at",
        "agency_id",
        "agency_name",
        "agency_code",
        "agency_logo_path",
        "area",
        "capcode",
        "has_mappable_address",
        "primary_address",
        "directions_url",
      ]),
    );
    expect(data[2]).toMatchObject({
      type: "emergency",
      area: "Bendigo",
      agency_name: "Country Fire Authority",
    });
    const ses = (await search(sesToken)).json().data as Alert[];
    expect(ses.map((a) => a.agency_code)).toEqual(["SES"]);
  });

  it("needs every search word, case-insensitively, and treats % and _ literally", async () => {
    const words = async (s: string) =>
      ((await search(cfaToken, { search: s })).json().data as Alert[]).length;
    expect(await words("fire")).toBe(2);
    expect(await words("FIRE high")).toBe(1);
    expect(await words("fire tree")).toBe(0);
    expect(await words("100%")).toBe(1);
    expect(await words("1_0")).toBe(0);
  });

  it("filters by type, area and agency; another agency's id is 403", async () => {
    const only = async (q: Record<string, string | number>) =>
      ((await search(bothToken, q)).json().data as Alert[]).map((a) => a.message.slice(0, 16));
    expect(await only({ type: "non-emergency" })).toEqual(["F251100002 BALL1"]);
    expect(await only({ type: "admin" })).toEqual(["BRIGADE MEETING "]);
    expect(await only({ area: "geelong" })).toEqual(["ALERT S251100003"]);
    expect((await only({ agency_id: agencyId.SES! })).length).toBe(1);
    const denied = await search(cfaToken, { agency_id: agencyId.SES! });
    expect(denied.statusCode).toBe(403);
  });

  it("lets an admin see every agency, UNMAPPED included, only in admin context", async () => {
    const plain = (await search(adminToken)).json().data as Alert[];
    expect(plain).toHaveLength(0);
    const all = (await search(adminToken, { admin_context: "true" })).json().data as Alert[];
    expect(all.map((a) => a.agency_code)).toContain("UNMAPPED");
    expect(all).toHaveLength(5);
    const userTries = (await search(cfaToken, { admin_context: "true" })).json().data as Alert[];
    expect(userTries.every((a) => a.agency_code === "CFA")).toBe(true);
  });

  it("pages with an opaque cursor, without gaps or repeats", async () => {
    const batch = Array.from({ length: 120 }, (_, i) => ({
      capcode: "0300001",
      message: `@@ALERT PAGING CHECK NUMBER ${i}`,
    }));
    await ingest(batch);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await search(cfaToken, { search: "paging", limit: 50, ...(cursor ? { cursor } : {}) });
      const body = res.json();
      seen.push(...(body.data as Alert[]).map((a) => a.id));
      cursor = body.pagination.next_cursor;
      expect(body.pagination.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  it("rejects bad query input with 400", async () => {
    const bad: Record<string, string | number>[] = [
      { limit: 0 },
      { limit: 101 },
      { type: "urgent" },
      { cursor: "not-a-cursor" },
      { agency_id: "x" },
    ];
    for (const q of bad) {
      expect((await search(cfaToken, q)).statusCode, JSON.stringify(q)).toBe(400);
    }
  });

  it("leaves out agencies the user hid in filter settings", async () => {
    const [row] = await app.db
      .insert(userFilters)
      .values({
        userId: cfaUserId,
        filterType: "agency",
        filterValue: String(agencyId.CFA),
        isEnabled: false,
      })
      .returning();
    try {
      expect((await search(cfaToken)).json().data).toHaveLength(0);
    } finally {
      await app.db.delete(userFilters).where(eq(userFilters.id, row!.id));
    }
  });

  it("shows a message paged to two agencies once, under the viewer's own agency", async () => {
    const text = "@@ALERT F251100077 JOINT RESPONSE RESCC1 CAR V TREE 3 LAKE RD BENDIGO /Z ST M 3 C3";
    const [first] = await ingest([
      { capcode: "0300001", message: text },
      { capcode: "0400001", message: text },
    ]);
    const ses = (await search(sesToken, { search: "joint" })).json().data as Alert[];
    expect(ses).toHaveLength(1);
    expect(ses[0]).toMatchObject({ id: first!.id, agency_code: "SES" });
    const both = (await search(bothToken, { search: "joint" })).json().data as Alert[];
    expect(both).toHaveLength(1);
  });

  it("returns job groups when asked, oldest message first", async () => {
    await ingest([
      {
        capcode: "0300001",
        message: "@@ALERT F251100500 BEND1 STRUC1 SHED FIRE 7 OAK ST BENDIGO /A ST M 4 D4",
      },
      { capcode: "0300001", message: "Hb F251100500 STOP CALL SHED FIRE CONTAINED" },
    ]);
    const res = await search(cfaToken, { search: "F251100500", grouped: "true" });
    const groups = res.json().data;
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({
      job_number: "F251100500",
      total_count: 2,
      is_grouped: true,
      has_emergency: true,
    });
    expect(groups[0].messages.map((m: Alert) => m.type)).toEqual(["emergency", "non-emergency"]);
    expect(groups[0].primary_message.type).toBe("emergency");

    const one = groups[0].messages[1].id;
    const dialog = await get(`/api/alerts/${one}/group`, cfaToken);
    expect(dialog.json().data.messages.map((m: Alert) => m.id)).toEqual(
      groups[0].messages.map((m: Alert) => m.id),
    );
  });

  it("needs a signed-in user", async () => {
    expect((await app.inject({ method: "GET", url: "/api/alerts/search" })).statusCode).toBe(401);
  });
});

describe("GET /api/alerts/{id}", () => {
  it("returns the user's alert, 403 with the spec's text for another agency's, 404 for none", async () => {
    const cfa = (await search(cfaToken, { search: "HOUSE" })).json().data[0] as Alert;
    const ses = (await search(sesToken, { search: "TREE DOWN" })).json().data[0] as Alert;
    const own = await get(`/api/alerts/${cfa.id}`, cfaToken);
    expect(own.statusCode).toBe(200);
    expect(own.json().data.id).toBe(cfa.id);

    const other = await get(`/api/alerts/${ses.id}`, cfaToken);
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ success: false, message: MESSAGES.JOB_FORBIDDEN });

    const missing = await get("/api/alerts/999999999", cfaToken);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe(MESSAGES.JOB_NOT_FOUND);

    expect((await get("/api/alerts/12abc", cfaToken)).statusCode).toBe(400);
    expect((await get(`/api/alerts/${ses.id}`, adminToken)).statusCode).toBe(200);
  });
});

describe("recent alerts and stats", () => {
  it("defaults recent to 20 and counts the feed by type", async () => {
    const recent = await get("/api/alerts/recent", cfaToken);
    expect(recent.json().data).toHaveLength(20);
    const stats = (await get("/api/alerts/stats/overview", sesToken)).json().data;
    expect(stats.days).toBe(7);
    expect(stats.total).toBe(2);
    expect(stats.by_type).toEqual({ emergency: 2 });
  });
});

describe("the time shown is the pager's", () => {
  type Timed = Alert & { created_at: string; sent_at: string; received_at: string };
  const HOUR = 3_600_000;
  const feed = async (words: string, extra: Record<string, string | number> = {}) =>
    (await search(cfaToken, { search: words, ...extra })).json().data as Timed[];

  it("shows a page replayed from the spool at its pager time, below newer alerts", async () => {
    const [newer] = await ingest([{ capcode: "0300002", message: "@@ALERT SPOOLTEST NEWER PAGE" }]);
    const pagedAt = new Date(Date.now() - 3 * HOUR).toISOString();
    const [replayed] = await ingest([
      { capcode: "0300002", message: "@@ALERT SPOOLTEST REPLAYED PAGE", timestamp: pagedAt },
    ]);
    const data = await feed("SPOOLTEST");
    expect(data.map((a) => a.id)).toEqual([newer!.id, replayed!.id]);
    expect(data[1]).toMatchObject({ sent_at: pagedAt, created_at: pagedAt });
    expect(Date.now() - Date.parse(data[1]!.received_at)).toBeLessThan(60_000);
    const one = (await get(`/api/alerts/${replayed!.id}`, cfaToken)).json().data as Timed;
    expect(one.sent_at).toBe(pagedAt);
  });

  it("shows the receipt time for a pager time in the future or older than the spool holds", async () => {
    const [future, ancient] = await ingest([
      {
        capcode: "0300002",
        message: "@@ALERT CLOCKTEST FUTURE",
        timestamp: new Date(Date.now() + 3 * HOUR).toISOString(),
      },
      {
        capcode: "0300002",
        message: "@@ALERT CLOCKTEST ANCIENT",
        timestamp: new Date(Date.now() - 30 * 24 * HOUR).toISOString(),
      },
    ]);
    const data = await feed("CLOCKTEST");
    expect(data.map((a) => a.id)).toEqual([ancient!.id, future!.id]);
    for (const a of data) {
      expect(Math.abs(Date.parse(a.sent_at) - Date.parse(a.received_at))).toBeLessThan(1_000);
      expect(Date.now() - Date.parse(a.sent_at)).toBeLessThan(60_000);
    }
  });

  it("pages across mixed pager times by the time shown, every alert once", async () => {
    // Times out of id order, with ties, over the last six days.
    const times = Array.from({ length: 37 }, (_, i) => Date.now() - ((i * 7919) % 23) * 6 * HOUR - 1_000);
    await ingest(
      times.map((t, i) => ({
        capcode: "0300002",
        message: `@@ALERT MIXEDTIME PAGE ${i}`,
        timestamp: new Date(t).toISOString(),
      })),
    );
    const seen: Timed[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await search(cfaToken, { search: "MIXEDTIME", limit: 5, ...(cursor ? { cursor } : {}) });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...(body.data as Timed[]));
      cursor = body.pagination.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(8);
    expect(new Set(seen.map((a) => a.id)).size).toBe(37);
    const byTime = [...seen].sort((a, b) => Date.parse(b.sent_at) - Date.parse(a.sent_at) || b.id - a.id);
    expect(seen.map((a) => a.id)).toEqual(byTime.map((a) => a.id));
    expect(seen.map((a) => Date.parse(a.sent_at)).sort((a, b) => b - a)).toEqual(
      [...times].sort((a, b) => b - a),
    );
  });
});
