import { randomBytes } from "node:crypto";
import { MESSAGES } from "@turnout/domain";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { agencies, alertRecipients, alerts, capcodes } from "../../db/schema.js";

let app: TestApp;
let adminToken: string;
let userToken: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  app = await buildTestApp();
  const admin = await createUser(app, { isAdmin: true });
  const user = await createUser(app, { agencyCodes: ["CFA"] });
  adminToken = await signIn(app, admin.phone);
  userToken = await signIn(app, user.phone);
  for (const a of await app.db.select().from(agencies)) ids[a.code] = a.id;
});
afterAll(() => app.cleanup());

type Method = "GET" | "POST" | "PUT" | "DELETE";
const call = (method: Method, url: string, payload?: object, token = adminToken) =>
  app.inject({
    method,
    url: `/api${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

let next = 1_000_000;
/** A capcode number no other test uses. */
function freshCapcode(): string {
  next += 1;
  return String(next);
}

async function insertCapcode(agencyCode: string, fields: { alias?: string; area?: string } = {}) {
  const [row] = await app.db
    .insert(capcodes)
    .values({ capcode: freshCapcode(), agencyId: ids[agencyCode]!, ...fields })
    .returning();
  return row!;
}

/**
 * Stores an alert the way ingest does: primary agency and capcode on the alert, one recipient row per
 * capcode it was paged to, each with that capcode's agency.
 */
async function insertAlert(
  primary: { agencyId: number; capcode: typeof capcodes.$inferSelect },
  extra: Array<typeof capcodes.$inferSelect> = [],
  options: { message?: string; createdAt?: Date } = {},
) {
  const [alert] = await app.db
    .insert(alerts)
    .values({
      type: "emergency",
      rawMessage: options.message ?? "STRUCTURE FIRE",
      message: options.message ?? "STRUCTURE FIRE",
      capcode: primary.capcode.capcode,
      capcodeId: primary.capcode.id,
      agencyId: primary.agencyId,
      dedupeHash: randomBytes(16).toString("hex"),
      sentAt: new Date(),
      createdAt: options.createdAt ?? new Date(),
    })
    .returning();
  for (const c of [primary.capcode, ...extra]) {
    await app.db
      .insert(alertRecipients)
      .values({ alertId: alert!.id, capcodeId: c.id, agencyId: c.agencyId });
  }
  return alert!;
}

describe("admin capcode routes", () => {
  it.each([
    ["POST", "/admin/capcodes", { capcode: "123", agency_id: 1 }],
    ["PUT", "/admin/capcodes/1", { alias: "x" }],
    ["DELETE", "/admin/capcodes/1"],
    ["GET", "/admin/capcodes/unmapped"],
    ["GET", "/admin/capcodes/1/messages"],
    ["PUT", "/admin/capcodes/1/alias", { alias: "x" }],
    ["POST", "/admin/capcodes/1/assign", { agency_id: 1 }],
  ] as Array<[Method, string, object?]>)(
    "%s %s needs a token (401) and an admin (403)",
    async (method, url, payload) => {
      const anonymous = await app.inject({ method, url: `/api${url}`, ...(payload ? { payload } : {}) });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ success: false, errorType: "unauthorized" });
      const user = await call(method, url, payload, userToken);
      expect(user.statusCode).toBe(403);
      expect(user.json()).toMatchObject({ success: false, errorType: "forbidden" });
    },
  );

  it("answers 404 for an unknown capcode", async () => {
    for (const [method, url, payload] of [
      ["PUT", "/admin/capcodes/999999", { alias: "x" }],
      ["DELETE", "/admin/capcodes/999999"],
      ["GET", "/admin/capcodes/999999/messages"],
      ["PUT", "/admin/capcodes/999999/alias", { alias: "x" }],
      ["POST", "/admin/capcodes/999999/assign", { agency_id: ids.CFA }],
    ] as Array<[Method, string, object?]>) {
      const res = await call(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({
        success: false,
        errorType: "not_found",
        message: "Capcode not found",
      });
    }
  });
});

describe("creating and changing capcodes", () => {
  it("zero-pads a short capcode to 7 digits and returns exactly the wire fields", async () => {
    const res = await call("POST", "/admin/capcodes", {
      capcode: "12345",
      agency_id: ids.CFA,
      alias: " Pumper 1 ",
      area: "Bendigo",
    });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      capcode: "0012345",
      agency_id: ids.CFA,
      alias: "Pumper 1",
      area: "Bendigo",
    });
    expect(Object.keys(data).sort()).toEqual([
      "agency_id",
      "alias",
      "area",
      "capcode",
      "created_at",
      "id",
      "updated_at",
    ]);
  });

  it("keeps 7- to 10-digit capcodes as typed and takes the agency id as a string", async () => {
    const seven = await call("POST", "/admin/capcodes", { capcode: "0001234", agency_id: String(ids.SES) });
    expect(seven.json().data).toMatchObject({
      capcode: "0001234",
      agency_id: ids.SES,
      alias: null,
      area: null,
    });
    const ten = await call("POST", "/admin/capcodes", { capcode: "1234567890", agency_id: ids.SES });
    expect(ten.json().data.capcode).toBe("1234567890");
  });

  it("refuses a capcode that already exists, however it is padded, with 409", async () => {
    await call("POST", "/admin/capcodes", { capcode: "0077777", agency_id: ids.CFA });
    const res = await call("POST", "/admin/capcodes", { capcode: "77777", agency_id: ids.FRV });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ success: false, errorType: "conflict" });
    expect(res.json().message).toContain("0077777");
  });

  it.each([
    ["letters", { capcode: "12a45" }],
    ["too long", { capcode: "12345678901" }],
    ["empty", { capcode: "" }],
    ["no agency", { agency_id: undefined }],
    ["agency not a number", { agency_id: "cfa" }],
    ["alias too long", { alias: "x".repeat(101) }],
  ])("rejects a capcode with %s (400)", async (_, change) => {
    const res = await call("POST", "/admin/capcodes", {
      capcode: freshCapcode(),
      agency_id: ids.CFA,
      ...change,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
  });

  it("answers 404 for an unknown agency", async () => {
    const res = await call("POST", "/admin/capcodes", { capcode: freshCapcode(), agency_id: 999999 });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe("Agency not found");
  });

  it("updates number, alias and area, and clears a label sent as ''", async () => {
    const row = await insertCapcode("CFA", { alias: "Old", area: "Ballarat" });
    const res = await call("PUT", `/admin/capcodes/${row.id}`, { capcode: "4242", alias: "New", area: "" });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      capcode: "0004242",
      alias: "New",
      area: null,
      agency_id: ids.CFA,
    });
    const untouched = await call("PUT", `/admin/capcodes/${row.id}`, {});
    expect(untouched.json().data).toMatchObject({ capcode: "0004242", alias: "New" });
    const taken = await insertCapcode("CFA");
    expect((await call("PUT", `/admin/capcodes/${taken.id}`, { capcode: "4242" })).statusCode).toBe(409);
    expect((await call("PUT", `/admin/capcodes/${row.id}`, { agency_id: 999999 })).statusCode).toBe(404);
  });

  it("moves the recipients of earlier alerts when an update changes the agency", async () => {
    const row = await insertCapcode("FRV");
    const alert = await insertAlert({ agencyId: ids.FRV!, capcode: row });
    const res = await call("PUT", `/admin/capcodes/${row.id}`, { agency_id: ids.SES });
    expect(res.statusCode).toBe(200);
    const [recipient] = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.alertId, alert.id));
    expect(recipient!.agencyId).toBe(ids.SES);
    // The alert keeps the real agency it was filed under.
    const [stored] = await app.db.select().from(alerts).where(eq(alerts.id, alert.id));
    expect(stored!.agencyId).toBe(ids.FRV);
  });

  it("sets and clears an alias", async () => {
    const row = await insertCapcode("CFA");
    const set = await call("PUT", `/admin/capcodes/${row.id}/alias`, { alias: "Tanker" });
    expect(set.statusCode).toBe(200);
    expect(set.json().data.alias).toBe("Tanker");
    expect(
      (await call("PUT", `/admin/capcodes/${row.id}/alias`, { alias: "" })).json().data.alias,
    ).toBeNull();
    expect(
      (await call("PUT", `/admin/capcodes/${row.id}/alias`, { alias: null })).json().data.alias,
    ).toBeNull();
    expect((await call("PUT", `/admin/capcodes/${row.id}/alias`, {})).statusCode).toBe(400);
  });

  it("deletes a capcode from every listing and count, and 404s it afterwards", async () => {
    const row = await insertCapcode("CFA");
    const listed = async () =>
      ((await call("GET", `/admin/agencies/${ids.CFA}/capcodes`)).json().data as { id: number }[]).map(
        (c) => c.id,
      );
    const capcodeCount = async () =>
      (await call("GET", `/admin/agencies/${ids.CFA}`)).json().data.capcode_count as number;
    expect(await listed()).toContain(row.id);
    const before = await capcodeCount();

    const res = await call("DELETE", `/admin/capcodes/${row.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toContain(`Capcode ${row.capcode} deleted.`);
    expect(await listed()).not.toContain(row.id);
    expect(await capcodeCount()).toBe(before - 1);
    for (const [method, url, payload] of [
      ["DELETE", `/admin/capcodes/${row.id}`],
      ["PUT", `/admin/capcodes/${row.id}`, { alias: "x" }],
      ["PUT", `/admin/capcodes/${row.id}/alias`, { alias: "x" }],
      ["POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.SES }],
      ["GET", `/admin/capcodes/${row.id}/messages`],
    ] as Array<[Method, string, object?]>) {
      expect((await call(method, url, payload)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call("DELETE", "/admin/capcodes/x1")).statusCode).toBe(400);
  });

  it("adds a deleted number again as a new capcode, alone or in a bulk list", async () => {
    const row = await insertCapcode("CFA");
    expect((await call("DELETE", `/admin/capcodes/${row.id}`)).statusCode).toBe(200);
    const again = await call("POST", "/admin/capcodes", { capcode: row.capcode, agency_id: ids.SES });
    expect(again.statusCode).toBe(201);
    expect(again.json().data).toMatchObject({ capcode: row.capcode, agency_id: ids.SES });
    expect(again.json().data.id).not.toBe(row.id);

    const other = await insertCapcode("CFA");
    expect((await call("DELETE", `/admin/capcodes/${other.id}`)).statusCode).toBe(200);
    const bulk = await call("POST", `/admin/agencies/${ids.FRV}/capcodes/bulk`, {
      capcodes: [{ capcode: other.capcode }],
    });
    expect(bulk.json().data).toMatchObject({ created: 1, moved: 0 });
  });

  it("keeps a deleted capcode's alerts with the agency that received them", async () => {
    const row = await insertCapcode("CFA");
    const alert = await insertAlert({ agencyId: ids.CFA!, capcode: row });
    expect((await call("DELETE", `/admin/capcodes/${row.id}`)).statusCode).toBe(200);
    const recipients = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.alertId, alert.id));
    expect(recipients).toEqual([{ alertId: alert.id, capcodeId: row.id, agencyId: ids.CFA }]);
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const res = await call("GET", `/alerts/${alert.id}`, undefined, await signIn(app, user.phone));
    expect(res.statusCode).toBe(200);
  });
});

describe("unmapped capcodes and their messages", () => {
  it("lists capcodes under UNMAPPED with how often and when they were last paged", async () => {
    const quiet = await insertCapcode("UNMAPPED");
    const busy = await insertCapcode("UNMAPPED");
    await insertCapcode("CFA");
    await insertAlert({ agencyId: ids.UNMAPPED!, capcode: busy }, [], {
      createdAt: new Date("2025-01-01T00:00:00Z"),
    });
    await insertAlert({ agencyId: ids.UNMAPPED!, capcode: busy }, [], {
      createdAt: new Date("2025-01-02T00:00:00Z"),
    });

    const res = await call("GET", "/admin/capcodes/unmapped");
    expect(res.statusCode).toBe(200);
    const data = res.json().data as Array<Record<string, unknown>>;
    expect(data.every((c) => c.agency_id === ids.UNMAPPED)).toBe(true);
    const busyRow = data.find((c) => c.id === busy.id)!;
    expect(busyRow).toMatchObject({ message_count: 2, last_seen: "2025-01-02T00:00:00.000Z" });
    expect(data.find((c) => c.id === quiet.id)).toMatchObject({ message_count: 0, last_seen: null });
    expect(data.findIndex((c) => c.id === busy.id)).toBeLessThan(data.findIndex((c) => c.id === quiet.id));
  });

  it("lists a capcode's messages newest first, limited, with the wire fields", async () => {
    const row = await insertCapcode("CFA");
    const other = await insertCapcode("SES");
    // Paged to both; SES is the primary, so the CFA capcode only appears as a recipient.
    const shared = await insertAlert({ agencyId: ids.SES!, capcode: other }, [row], {
      message: "shared",
      createdAt: new Date("2025-02-01T00:00:00Z"),
    });
    const older = await insertAlert({ agencyId: ids.CFA!, capcode: row }, [], {
      message: "older",
      createdAt: new Date("2025-01-01T00:00:00Z"),
    });
    await insertAlert({ agencyId: ids.SES!, capcode: other }, [], { message: "not ours" });

    const res = await call("GET", `/admin/capcodes/${row.id}/messages`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((m: { id: number }) => m.id)).toEqual([shared.id, older.id]);
    expect(data[0]).toEqual({
      id: shared.id,
      type: "emergency",
      message: "shared",
      created_at: "2025-02-01T00:00:00.000Z",
      agency_id: ids.SES,
    });
    const limited = await call("GET", `/admin/capcodes/${row.id}/messages?limit=1`);
    expect(limited.json().data).toHaveLength(1);
    for (const limit of ["0", "201", "ten"]) {
      expect((await call("GET", `/admin/capcodes/${row.id}/messages?limit=${limit}`)).statusCode).toBe(400);
    }
  });
});

describe("assigning a capcode", () => {
  it("moves the capcode and, in one go, its earlier unmapped alerts to the agency", async () => {
    const unmapped = await insertCapcode("UNMAPPED");
    const cfaCapcode = await insertCapcode("CFA");
    // 1: paged only to this capcode, filed under UNMAPPED.
    const alone = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: unmapped });
    // 2: paged to this capcode first and to a CFA capcode too; still filed under UNMAPPED.
    const firstOfTwo = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: unmapped }, [cfaCapcode]);
    // 3: paged to a CFA capcode first, this one as a second recipient: stays filed under CFA.
    const second = await insertAlert({ agencyId: ids.CFA!, capcode: cfaCapcode }, [unmapped]);

    const res = await call("POST", `/admin/capcodes/${unmapped.id}/assign`, {
      agency_id: ids.FRV,
      alias: "Station 1",
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      message: `Capcode ${unmapped.capcode} (Station 1) assigned to Fire Rescue Victoria.`,
      data: {
        capcode: { id: unmapped.id, agency_id: ids.FRV, alias: "Station 1" },
        agency: { id: ids.FRV, code: "FRV", name: "Fire Rescue Victoria", logo_path: null },
        moved_alerts: 3,
      },
    });

    const filed = await app.db.select().from(alerts);
    const agencyOf = (id: number) => filed.find((a) => a.id === id)!.agencyId;
    expect(agencyOf(alone.id)).toBe(ids.FRV);
    expect(agencyOf(firstOfTwo.id)).toBe(ids.FRV);
    expect(agencyOf(second.id)).toBe(ids.CFA);

    const recipients = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.capcodeId, unmapped.id));
    expect(recipients).toHaveLength(3);
    expect(recipients.every((r) => r.agencyId === ids.FRV)).toBe(true);
    const cfaRecipients = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.capcodeId, cfaCapcode.id));
    expect(cfaRecipients.every((r) => r.agencyId === ids.CFA)).toBe(true);

    const stillUnmapped = (await call("GET", "/admin/capcodes/unmapped")).json().data as Array<{
      id: number;
    }>;
    expect(stillUnmapped.some((c) => c.id === unmapped.id)).toBe(false);
  });

  it("also moves unmapped alerts stored by number before the capcode row existed", async () => {
    const row = await insertCapcode("UNMAPPED");
    const [orphan] = await app.db
      .insert(alerts)
      .values({
        type: "standard",
        rawMessage: "TEST",
        message: "TEST",
        capcode: row.capcode,
        capcodeId: null,
        agencyId: ids.UNMAPPED!,
        dedupeHash: randomBytes(16).toString("hex"),
        sentAt: new Date(),
      })
      .returning();
    const res = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.SES });
    expect(res.json().data.moved_alerts).toBe(1);
    const [stored] = await app.db.select().from(alerts).where(eq(alerts.id, orphan!.id));
    expect(stored!.agencyId).toBe(ids.SES);
  });

  it("keeps the alias when none is sent and clears it when '' or null is sent", async () => {
    const row = await insertCapcode("UNMAPPED", { alias: "Known" });
    const kept = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.CFA });
    expect(kept.json().data).toMatchObject({ capcode: { alias: "Known" }, moved_alerts: 0 });
    expect(kept.json().message).toBe(`Capcode ${row.capcode} (Known) assigned to Country Fire Authority.`);
    const cleared = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.CFA, alias: "" });
    expect(cleared.json().data.capcode.alias).toBeNull();
    const nulled = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.CFA, alias: "X" });
    expect(nulled.json().data.capcode.alias).toBe("X");
    expect(
      (await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.CFA, alias: null })).json()
        .data.capcode.alias,
    ).toBeNull();
  });

  it("fails in the one error shape, for the 'Failed to capcode' dialog, and changes nothing", async () => {
    const row = await insertCapcode("UNMAPPED");
    const alert = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: row });
    const missing = await call("POST", `/admin/capcodes/${row.id}/assign`, { alias: "x" });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ success: false, errorType: "validation_error" });
    expect(missing.json().message).toContain("agency_id");

    const unknown = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: 999999 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, message: "Agency not found", errorType: "not_found" });
    expect(MESSAGES.CAPCODE_ASSIGN_TITLE).toBe("Assignment Failed");

    const [stored] = await app.db.select().from(alerts).where(eq(alerts.id, alert.id));
    expect(stored!.agencyId).toBe(ids.UNMAPPED);
    const [capcode] = await app.db.select().from(capcodes).where(eq(capcodes.id, row.id));
    expect(capcode!.agencyId).toBe(ids.UNMAPPED);
  });
});

describe("capcode areas and stored alerts", () => {
  type Found = { id: number; area: string | null };
  /** What the CFA user's feed shows for a search, optionally filtered by area. */
  async function searchAsCfaUser(query: Record<string, string>): Promise<Found[]> {
    const res = await call("GET", `/alerts/search?${new URLSearchParams(query)}`, undefined, userToken);
    expect(res.statusCode).toBe(200);
    return res.json().data;
  }
  const uniqueWord = () => `AREA${randomBytes(4).toString("hex").toUpperCase()}`;

  it("assigning with an area gives the capcode's older alerts that area, and the area filter finds them", async () => {
    const word = uniqueWord();
    const row = await insertCapcode("UNMAPPED");
    const older = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: row }, [], {
      message: `${word} GRASS FIRE`,
      createdAt: new Date(Date.now() - 86_400_000),
    });

    const res = await call("POST", `/admin/capcodes/${row.id}/assign`, {
      agency_id: ids.CFA,
      area: "Wodonga",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.capcode).toMatchObject({ agency_id: ids.CFA, area: "Wodonga" });

    expect(await searchAsCfaUser({ search: word })).toEqual([
      expect.objectContaining({ id: older.id, area: "Wodonga" }),
    ]);
    const filtered = await searchAsCfaUser({ search: word, area: "wodonga" });
    expect(filtered.map((a) => a.id)).toEqual([older.id]);
    expect(await searchAsCfaUser({ search: word, area: "Wangaratta" })).toEqual([]);
  });

  it("an alert shows the area of the capcode it was first paged to, as ingest sets it", async () => {
    const word = uniqueWord();
    const first = await insertCapcode("CFA", { area: "Bendigo" });
    const other = await insertCapcode("CFA");
    const firstIsOther = await insertAlert({ agencyId: ids.CFA!, capcode: other }, [first], {
      message: `${word} ONE`,
    });
    const firstIsFirst = await insertAlert({ agencyId: ids.CFA!, capcode: first }, [other], {
      message: `${word} TWO`,
    });

    await call("PUT", `/admin/capcodes/${other.id}`, { area: "Eaglehawk" });
    await call("PUT", `/admin/capcodes/${first.id}`, { area: "Bendigo" });

    const areas = Object.fromEntries((await searchAsCfaUser({ search: word })).map((a) => [a.id, a.area]));
    expect(areas).toEqual({ [firstIsOther.id]: "Eaglehawk", [firstIsFirst.id]: "Bendigo" });
  });

  it("an update's area reaches stored alerts, '' clears it from them, and no area leaves them alone", async () => {
    const row = await insertCapcode("CFA");
    const alert = await insertAlert({ agencyId: ids.CFA!, capcode: row });
    const areaOf = async () =>
      (await app.db.select({ area: alerts.area }).from(alerts).where(eq(alerts.id, alert.id)))[0]!.area;

    await call("PUT", `/admin/capcodes/${row.id}`, { area: "Castlemaine" });
    expect(await areaOf()).toBe("Castlemaine");
    await call("PUT", `/admin/capcodes/${row.id}`, { alias: "Tanker" });
    expect(await areaOf()).toBe("Castlemaine");
    await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: ids.CFA });
    expect(await areaOf()).toBe("Castlemaine");
    await call("PUT", `/admin/capcodes/${row.id}`, { area: "" });
    expect(await areaOf()).toBeNull();
  });

  it("a capcode created again with an area gives it to alerts stored under its number", async () => {
    const number = freshCapcode();
    const [orphan] = await app.db
      .insert(alerts)
      .values({
        type: "standard",
        rawMessage: "TEST",
        message: "TEST",
        capcode: number,
        capcodeId: null,
        agencyId: ids.CFA!,
        dedupeHash: randomBytes(16).toString("hex"),
        sentAt: new Date(),
      })
      .returning();

    const res = await call("POST", "/admin/capcodes", {
      capcode: number,
      agency_id: ids.CFA,
      area: "Kyneton",
    });
    expect(res.statusCode).toBe(201);
    const [stored] = await app.db.select().from(alerts).where(eq(alerts.id, orphan!.id));
    expect(stored!.area).toBe("Kyneton");
  });

  it("a failed assignment leaves the alerts' area as it was", async () => {
    const row = await insertCapcode("UNMAPPED", { area: "Echuca" });
    const alert = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: row });
    await app.db.update(alerts).set({ area: "Echuca" }).where(eq(alerts.id, alert.id));

    const res = await call("POST", `/admin/capcodes/${row.id}/assign`, { agency_id: 999999, area: "Moama" });
    expect(res.statusCode).toBe(404);
    const [stored] = await app.db.select().from(alerts).where(eq(alerts.id, alert.id));
    expect(stored!.area).toBe("Echuca");
    const [capcode] = await app.db.select().from(capcodes).where(eq(capcodes.id, row.id));
    expect(capcode!.area).toBe("Echuca");
  });

  it("a bulk assignment with areas gives each capcode's stored alerts its area", async () => {
    const word = uniqueWord();
    const moving = await insertCapcode("UNMAPPED");
    const staying = await insertCapcode("CFA", { area: "Horsham" });
    const untouched = await insertCapcode("CFA", { area: "Stawell" });
    const a1 = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: moving }, [], { message: `${word} 1` });
    // Stored before its capcode had an area: the bulk list repeats the area it already has.
    const a2 = await insertAlert({ agencyId: ids.CFA!, capcode: staying }, [], { message: `${word} 2` });
    const a3 = await insertAlert({ agencyId: ids.CFA!, capcode: untouched }, [], { message: `${word} 3` });

    const res = await call("POST", `/admin/agencies/${ids.CFA}/capcodes/bulk`, {
      capcodes: [
        { capcode: moving.capcode, area: "Nhill" },
        { capcode: staying.capcode, area: "Horsham" },
        { capcode: untouched.capcode },
      ],
    });
    expect(res.json().data).toEqual({ created: 0, moved: 1, updated: 0, unchanged: 2 });

    const areas = Object.fromEntries((await searchAsCfaUser({ search: word })).map((a) => [a.id, a.area]));
    expect(areas).toEqual({ [a1.id]: "Nhill", [a2.id]: "Horsham", [a3.id]: null });
    expect((await searchAsCfaUser({ search: word, area: "NHILL" })).map((a) => a.id)).toEqual([a1.id]);
  });
});

describe("capcode CSV export and import", () => {
  const importCsv = (csv: string, dry_run: boolean, token = adminToken) =>
    call("POST", "/admin/capcodes/import", { csv, dry_run }, token);

  it("is for admins only", async () => {
    for (const [method, url, payload] of [
      ["GET", "/admin/capcodes/export"],
      ["POST", "/admin/capcodes/import", { csv: "address,agency", dry_run: true }],
    ] as Array<[Method, string, object?]>) {
      const anonymous = await app.inject({ method, url: `/api${url}`, ...(payload ? { payload } : {}) });
      expect(anonymous.statusCode).toBe(401);
      expect((await call(method, url, payload, userToken)).statusCode).toBe(403);
    }
  });

  it("exports mapped capcodes in PagerMon's columns plus area and unit, without UNMAPPED or deleted ones", async () => {
    const kept = await insertCapcode("CFA", { alias: "Kyneton FB", area: "Macedon Ranges" });
    const unmapped = await insertCapcode("UNMAPPED");
    const gone = await insertCapcode("SES");
    await call("DELETE", `/admin/capcodes/${gone.id}`);
    const res = await call("GET", "/admin/capcodes/export");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe('attachment; filename="capcodes.csv"');
    const lines = res.body.split("\r\n");
    expect(lines[0]).toBe("id,address,alias,agency,icon,color,pluginconf,ignore,area,unit");
    expect(lines).toContain(`${kept.id},${kept.capcode},Kyneton FB,CFA,,,{},0,Macedon Ranges,`);
    expect(res.body).not.toContain(unmapped.capcode);
    expect(res.body).not.toContain(gone.capcode);
  });

  it("reads its own export back as all unchanged", async () => {
    await insertCapcode("FRV", { alias: 'Station "1", City' });
    const csv = (await call("GET", "/admin/capcodes/export")).body;
    const rows = csv.split("\r\n").filter(Boolean).length - 1;
    const res = await importCsv(csv, true);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      applied: false,
      created: [],
      changed: [],
      unchanged: rows,
      refused: [],
      units_created: [],
    });
  });

  it("a dry run lists what would be created, changed and refused, and writes nothing", async () => {
    const known = await insertCapcode("CFA", { alias: "Old", area: "Bendigo" });
    const newNumber = freshCapcode();
    const csv = [
      "id,address,alias,agency,icon,color,pluginconf,ignore,area,extra",
      `9,${newNumber},New FB,state emergency service,,,{},0,Loddon,x`,
      `,${known.capcode},Renamed,frv,,,,0,`,
      ",12345%,Wild,CFA",
      ",123,Nobody,Fire Brigade Of Nowhere",
      ",abc,Letters,CFA",
      ",4444444,Placeholder,UNMAPPED",
      `,${newNumber},Again,CFA`,
    ].join("\n");
    const res = await importCsv(csv, true);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      applied: false,
      created: [{ line: 2, capcode: newNumber, agency: "SES", alias: "New FB", area: "Loddon" }],
      changed: [
        {
          line: 3,
          capcode: known.capcode,
          from: { agency: "CFA", alias: "Old", area: "Bendigo" },
          to: { agency: "FRV", alias: "Renamed", area: null },
        },
      ],
      unchanged: 0,
      units_created: [],
      refused: [
        { line: 4, reason: expect.stringContaining("PagerMon wildcards") },
        {
          line: 5,
          reason: "agency 'Fire Brigade Of Nowhere': no agency has that code or name (add it first)",
        },
        { line: 6, reason: "address 'abc': a capcode is 1 to 10 digits" },
        { line: 7, reason: expect.stringContaining("agency UNMAPPED") },
        { line: 8, reason: `capcode ${newNumber} is already listed on line 2` },
      ],
    });
    expect(await app.db.select().from(capcodes).where(eq(capcodes.capcode, newNumber))).toEqual([]);
    const [still] = await app.db.select().from(capcodes).where(eq(capcodes.id, known.id));
    expect(still).toMatchObject({ agencyId: ids.CFA, alias: "Old", area: "Bendigo" });
  });

  it("applying writes the lines and takes a capcode's earlier UNMAPPED alerts to its agency", async () => {
    const waiting = await insertCapcode("UNMAPPED");
    const alert = await insertAlert({ agencyId: ids.UNMAPPED!, capcode: waiting });
    const labelled = await insertCapcode("SES", { alias: "Keep me", area: "Keep" });
    const newNumber = freshCapcode();
    const csv = [
      "address,agency,alias,area",
      `${waiting.capcode},CFA,Harcourt FB,Mount Alexander`,
      `${newNumber},Country Fire Authority,,`,
    ].join("\r\n");
    const withoutLabels = `address,agency\n${labelled.capcode},FRV\n`;

    const res = await importCsv(csv, false);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ applied: true, unchanged: 0, refused: [] });
    expect(res.json().data.changed).toEqual([
      {
        line: 2,
        capcode: waiting.capcode,
        from: { agency: "UNMAPPED", alias: null, area: null },
        to: { agency: "CFA", alias: "Harcourt FB", area: "Mount Alexander" },
      },
    ]);
    const [moved] = await app.db.select().from(alerts).where(eq(alerts.id, alert.id));
    expect(moved).toMatchObject({ agencyId: ids.CFA, area: "Mount Alexander" });
    const [created] = await app.db.select().from(capcodes).where(eq(capcodes.capcode, newNumber));
    expect(created).toMatchObject({ agencyId: ids.CFA, alias: null, area: null });
    const cfaUser = await createUser(app, { agencyCodes: ["CFA"] });
    const seen = await call("GET", `/alerts/${alert.id}`, undefined, await signIn(app, cfaUser.phone));
    expect(seen.statusCode).toBe(200);

    // A file without alias and area columns (an older PagerMon's) leaves those labels as they are.
    expect((await importCsv(withoutLabels, false)).json().data.changed[0].to).toEqual({
      agency: "FRV",
      alias: "Keep me",
      area: "Keep",
    });
  });

  it("refuses text without a header naming address and agency, and more than 1 MB", async () => {
    const res = await importCsv("1234567,CFA\n", true);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain("at least address and agency");
    expect((await importCsv("x".repeat(1_048_577), true)).statusCode).toBe(400);
  });
});
