import { eq } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn, uniquePhone, waitForCode } from "../../../test/factories.js";
import { withTwoInstances } from "../../../test/two-instances.js";
import {
  agencies,
  capcodes,
  unitCapcodes,
  units,
  userAgencies,
  userAlertRules,
  userUnits,
} from "../../db/schema.js";
import { type PushStandIn, startPushStandIn } from "../../testing/push-stand-in.js";

// Brigades and units (issue 26): admin set-up, registration, the unit view of the feed (equal to the
// agency-wide feed filtered to the units, page by page), machine pages, push, keyword rules, the CSV
// import, and unit rooms on the live channel across two instances.

const KEY = "units-test-ingest-key-000000";
let app: TestApp;
let standIn: PushStandIn;
let adminToken: string;
const agencyId: Record<string, number> = {};
const capcodeId: Record<string, number> = {};
const unitId: Record<string, number> = {};

type Method = "GET" | "POST" | "PUT" | "DELETE";
const call = (method: Method, url: string, token: string | null, payload?: unknown, target = app) =>
  target.inject({
    method,
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

let jobCounter = 0;
const nextJob = () => `F2614${String(++jobCounter).padStart(5, "0")}`;

/** Ingests one message paged to the given capcodes; resolves to its alert id. */
async function page(capcodeList: string[], message: string, target = app): Promise<number> {
  const res = await target.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages: capcodeList.map((capcode) => ({ capcode, message })) },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data[0].id as number;
}

/** Every alert id of a member's feed, page by page (small pages, so cursors are exercised). */
async function feedIds(token: string, query: Record<string, string> = {}): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const params = new URLSearchParams({ limit: "4", ...query, ...(cursor ? { cursor } : {}) });
    const res = await call("GET", `/alerts/search?${params}`, token);
    expect(res.statusCode).toBe(200);
    ids.push(...(res.json().data as { id: number }[]).map((a) => a.id));
    cursor = res.json().pagination.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error("too many pages");
}

// Capcodes: Kangaroo Flat's two (emergency and non-emergency), Hotham Heights', Doveton's (no unit),
// and one of SES Bendigo.
const KF1 = "1400001";
const KF2 = "1400002";
const HH = "1400003";
const DOV = "1400004";
const SESB = "1400005";

beforeAll(async () => {
  standIn = await startPushStandIn();
  app = await buildTestApp({ INGEST_API_KEY: KEY, PUSH_EXTRA_ENDPOINT_HOSTS: "127.0.0.1" });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  const rows = await app.db
    .insert(capcodes)
    .values([
      { capcode: KF1, agencyId: agencyId.CFA!, alias: "Kangaroo Flat" },
      { capcode: KF2, agencyId: agencyId.CFA!, alias: "Kangaroo Flat" },
      { capcode: HH, agencyId: agencyId.CFA!, alias: "Hotham Heights" },
      { capcode: DOV, agencyId: agencyId.CFA!, alias: "Doveton" },
      { capcode: SESB, agencyId: agencyId.SES!, alias: "Bendigo" },
    ])
    .returning();
  for (const r of rows) capcodeId[r.capcode] = r.id;
  const admin = await createUser(app, { isAdmin: true, agencyCodes: [] });
  adminToken = await signIn(app, admin.phone);
});
afterAll(async () => {
  await standIn?.close();
  await app?.cleanup();
});

describe("units, as an admin sets them up", () => {
  it("adds units placed at the locality given, or the one their name names", async () => {
    const kf = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "Kangaroo Flat",
      code: "kang",
      postcode: "3555",
      suburb: "Kangaroo Flat",
      state: "VIC",
    });
    expect(kf.statusCode, kf.body).toBe(201);
    expect(kf.json().data).toMatchObject({ name: "Kangaroo Flat", code: "KANG", suburb: "Kangaroo Flat" });
    expect(kf.json().data.has_location).toBe(true);
    const hh = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "Hotham Heights Fire Brigade",
    });
    expect(hh.json().data).toMatchObject({ suburb: "Hotham Heights", state: "VIC", has_location: true });
    const ses = await call("POST", `/admin/agencies/${agencyId.SES}/units`, adminToken, {
      name: "Bendigo SES Unit",
    });
    expect(ses.statusCode).toBe(201);
    unitId.KF = kf.json().data.id;
    unitId.HH = hh.json().data.id;
    unitId.SESB = ses.json().data.id;
    // A name three states share: the state of the agency's other units decides, else no place.
    const group = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "Kangaroo Flat Group",
    });
    expect(group.json().data).toMatchObject({ suburb: "Kangaroo Flat", state: "VIC", has_location: true });
    const elsewhere = await call("POST", `/admin/agencies/${agencyId.FRV}/units`, adminToken, {
      name: "Kangaroo Flat Station",
    });
    expect(elsewhere.json().data).toMatchObject({ suburb: null, has_location: false });
    for (const extra of [group, elsewhere])
      expect((await call("DELETE", `/admin/units/${extra.json().data.id}`, adminToken)).statusCode).toBe(200);
  });

  it("refuses a duplicate name, an unknown place, a bad body and a member", async () => {
    const again = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "KANGAROO FLAT",
    });
    expect(again.statusCode).toBe(409);
    const nowhere = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "Nowhere",
      postcode: "3555",
      suburb: "Atlantis",
      state: "VIC",
    });
    expect(nowhere.statusCode).toBe(400);
    expect(nowhere.json().message).toMatch(/Location not found/);
    expect(
      (await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, { name: "" })).statusCode,
    ).toBe(400);
    expect((await call("POST", "/admin/agencies/999999/units", adminToken, { name: "X" })).statusCode).toBe(
      404,
    );
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    const token = await signIn(app, member.phone);
    expect(
      (await call("POST", `/admin/agencies/${agencyId.CFA}/units`, token, { name: "X" })).statusCode,
    ).toBe(403);
    expect((await call("GET", `/admin/agencies/${agencyId.CFA}/units`, token)).statusCode).toBe(403);
  });

  it("gives a unit only its own agency's capcodes", async () => {
    const foreign = await call("PUT", `/admin/units/${unitId.KF}/capcodes`, adminToken, {
      capcode_ids: [capcodeId[KF1], capcodeId[SESB]],
    });
    expect(foreign.statusCode).toBe(400);
    for (const [unit, list] of [
      ["KF", [KF1, KF2]],
      ["HH", [HH]],
      ["SESB", [SESB]],
    ] as const) {
      const res = await call("PUT", `/admin/units/${unitId[unit]}/capcodes`, adminToken, {
        capcode_ids: list.map((c) => capcodeId[c]),
      });
      expect(res.statusCode).toBe(200);
    }
    const listed = (await call("GET", `/admin/agencies/${agencyId.CFA}/units`, adminToken)).json().data;
    expect(listed.map((u: { name: string }) => u.name)).toEqual([
      "Hotham Heights Fire Brigade",
      "Kangaroo Flat",
    ]);
    expect(listed[1].capcodes.map((c: { capcode: string }) => c.capcode)).toEqual([KF1, KF2]);
  });
  it("hides a deleted capcode from its unit's list, keeps it serving the unit, and refuses it as a new choice", async () => {
    const [kept, retired] = await app.db
      .insert(capcodes)
      .values([
        { capcode: "1400097", agencyId: agencyId.CFA!, alias: "Spare pager" },
        { capcode: "1400098", agencyId: agencyId.CFA!, alias: "Retired pager" },
      ])
      .returning();
    const created = await call("POST", `/admin/agencies/${agencyId.CFA}/units`, adminToken, {
      name: "Retired Pager Test Unit",
    });
    const id = created.json().data.id as number;
    const setTo = (list: number[]) =>
      call("PUT", `/admin/units/${id}/capcodes`, adminToken, { capcode_ids: list });
    try {
      expect((await setTo([kept!.id, retired!.id])).statusCode).toBe(200);
      expect((await call("DELETE", `/admin/capcodes/${retired!.id}`, adminToken)).statusCode).toBe(200);
      const listed = (await call("GET", `/admin/agencies/${agencyId.CFA}/units`, adminToken)).json().data;
      const unit = listed.find((u: { id: number }) => u.id === id);
      expect(unit.capcodes).toEqual([{ id: kept!.id, capcode: "1400097", alias: "Spare pager" }]);

      // Saving the unit's list as the admin sees it leaves the deleted capcode's earlier alerts to it.
      expect((await setTo([kept!.id])).statusCode).toBe(200);
      const rows = await app.db.select().from(unitCapcodes).where(eq(unitCapcodes.unitId, id));
      expect(rows.map((r) => r.capcodeId).sort()).toEqual([kept!.id, retired!.id].sort());
      const again = await setTo([retired!.id]);
      expect(again.statusCode).toBe(400);
      expect(again.json().message).toContain(String(retired!.id));
    } finally {
      await call("DELETE", `/admin/units/${id}`, adminToken);
    }
  });
});

describe("members and their units", () => {
  it("offers the units near the place a new member gives, nearest first, to anyone", async () => {
    const res = await call(
      "GET",
      "/units/nearby?agency=CFA&postcode=3555&suburb=KANGAROO%20FLAT&state=VIC",
      null,
    );
    expect(res.statusCode).toBe(200);
    const offered = res.json().data as { name: string; distance_km: number | null }[];
    expect(offered.map((u) => u.name)).toEqual(["Kangaroo Flat", "Hotham Heights Fire Brigade"]);
    expect(offered[0]!.distance_km).toBe(0);
    expect(offered[1]!.distance_km).toBeGreaterThan(200);
    expect(offered[0]).not.toHaveProperty("latitude");
    const ses = (await call("GET", "/units/nearby?agency=ses&postcode=3550", null)).json().data;
    expect(ses.map((u: { name: string }) => u.name)).toEqual(["Bendigo SES Unit"]);
    expect((await call("GET", "/units/nearby?postcode=3550", null)).statusCode).toBe(400);
  });

  it("registers a member in the units they chose, of the agency they chose only", async () => {
    const body = (phone: string, unit_ids: number[]) => ({
      first_name: "Kim",
      last_name: "Brigade",
      phone,
      user_agency: "CFA",
      postcode: "3555",
      town_name: "Kangaroo Flat",
      state_name: "VIC",
      unit_ids,
    });
    const wrong = await call("POST", "/auth/register", null, body(uniquePhone(), [unitId.SESB!]));
    expect(wrong.statusCode).toBe(400);
    const phone = uniquePhone();
    const ok = await call("POST", "/auth/register", null, body(phone, [unitId.KF!]));
    expect(ok.statusCode).toBe(201);
    const activation = await waitForCode(app, phone);
    expect(
      (await call("POST", "/auth/activate", null, { phone, activation_code: activation })).statusCode,
    ).toBe(200);
    const [user] = await app.db.select().from(userUnits).innerJoin(units, eq(units.id, userUnits.unitId));
    expect(user?.units.name).toBe("Kangaroo Flat");
  });

  it("lets a member choose units of their own agencies, and lists them in the profile", async () => {
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    const token = await signIn(app, member.phone);
    expect((await call("PUT", "/units/mine", token, { unit_ids: [unitId.SESB] })).statusCode).toBe(400);
    expect((await call("PUT", "/units/mine", token, { unit_ids: [0] })).statusCode).toBe(400);
    const set = await call("PUT", "/units/mine", token, { unit_ids: [unitId.KF] });
    expect(set.json().data).toMatchObject({ default_view: "units", units: [{ name: "Kangaroo Flat" }] });
    const profile = (await call("GET", "/auth/profile", token)).json();
    expect(profile.user.units).toEqual([{ id: unitId.KF, name: "Kangaroo Flat", agency_id: agencyId.CFA }]);
    const offered = (await call("GET", "/units", token)).json().data as { name: string }[];
    expect(offered.map((u) => u.name).sort()).toEqual(["Hotham Heights Fire Brigade", "Kangaroo Flat"]);
    const none = await call("PUT", "/units/mine", token, { unit_ids: [] });
    expect(none.json().data).toEqual({
      units: [],
      agencies: [{ id: agencyId.CFA, name: "Country Fire Authority", code: "CFA" }],
      default_view: "agencies",
    });
  });

  it("lets an admin set a user's units, assigning their agency with them", async () => {
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    const res = await call("PUT", `/admin/users/${member.id}/units`, adminToken, { unit_ids: [unitId.SESB] });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((u: { name: string }) => u.name)).toEqual(["Bendigo SES Unit"]);
    const assigned = await app.db.select().from(userAgencies).where(eq(userAgencies.userId, member.id));
    expect(assigned.map((a) => a.agencyId).sort()).toEqual([agencyId.CFA, agencyId.SES].sort());
    expect((await call("GET", "/admin/users/999999/units", adminToken)).statusCode).toBe(404);
  });

  it("drops a member's units with the agency, and a capcode's units when it moves agency", async () => {
    const member = await createUser(app, { agencyCodes: ["CFA", "SES"] });
    await app.db.insert(userUnits).values([
      { userId: member.id, unitId: unitId.KF! },
      { userId: member.id, unitId: unitId.SESB! },
    ]);
    const removed = await call("DELETE", `/admin/users/${member.id}/agencies/${agencyId.SES}`, adminToken);
    expect(removed.statusCode).toBe(200);
    const left = await app.db.select().from(userUnits).where(eq(userUnits.userId, member.id));
    expect(left.map((u) => u.unitId)).toEqual([unitId.KF]);

    const [moving] = await app.db
      .insert(capcodes)
      .values({ capcode: "1400099", agencyId: agencyId.CFA! })
      .returning();
    await app.db.insert(unitCapcodes).values({ unitId: unitId.HH!, capcodeId: moving!.id });
    const assigned = await call("POST", `/admin/capcodes/${moving!.id}/assign`, adminToken, {
      agency_id: agencyId.FRV,
    });
    expect(assigned.statusCode).toBe(200);
    expect(await app.db.select().from(unitCapcodes).where(eq(unitCapcodes.capcodeId, moving!.id))).toEqual(
      [],
    );
  });
});

describe("the unit view of the feed", () => {
  let token: string;
  /** Alert ids paged to Kangaroo Flat's capcodes, the SES unit's, and the rest. */
  const toKf: number[] = [];
  const toSes: number[] = [];

  beforeAll(async () => {
    const member = await createUser(app, { agencyCodes: ["CFA", "SES"] });
    await app.db.insert(userUnits).values({ userId: member.id, unitId: unitId.KF! });
    token = await signIn(app, member.phone);
    const texts = ["STRUC1 HOUSE FIRE", "ALARC1 FIRE ALARM", "G&SC3 GRASS FIRE", "RESCC1 RESCUE"];
    const targets = [[KF1], [KF2], [HH], [DOV], [HH, KF2], [SESB], [DOV, SESB]];
    for (let i = 0; i < 28; i++) {
      const to = targets[i % targets.length]!;
      const id = await page(to, `@@ALERT ${nextJob()} ${texts[i % texts.length]} ${i} MAIN RD`);
      if (to.some((c) => c === KF1 || c === KF2)) toKf.push(id);
      if (to.includes(SESB)) toSes.push(id);
    }
  });

  it("is the agency-wide feed filtered to the member's units (and whole agencies without one), page by page", async () => {
    const all = await feedIds(token, { view: "agencies" });
    const mine = await feedIds(token);
    expect(mine.length).toBeGreaterThan(4);
    expect(mine).toEqual(all.filter((id) => toKf.includes(id) || toSes.includes(id)));
    expect(new Set(all).size).toBe(all.length);
  });

  it("agrees with the agency-wide search for search terms, type and agency filters", async () => {
    const queries: Record<string, string>[] = [
      { search: "fire" },
      { search: "grass fire" },
      { type: "emergency" },
      { agency_id: String(agencyId.CFA) },
    ];
    for (const query of queries) {
      const all = await feedIds(token, { ...query, view: "agencies" });
      const mine = await feedIds(token, query);
      // Asked for CFA alone, the view is the member's units there: SES, which they read whole, is out.
      const inView = (id: number) => toKf.includes(id) || (!query.agency_id && toSes.includes(id));
      expect(mine, JSON.stringify(query)).toEqual(all.filter(inView));
    }
  });

  it("presents each alert with the member's units it was paged to", async () => {
    const res = await call("GET", "/alerts/search?limit=50", token);
    const data = res.json().data as { id: number; units: { id: number; name: string }[] }[];
    for (const alert of data) {
      if (toKf.includes(alert.id))
        expect(alert.units).toContainEqual({ id: unitId.KF, name: "Kangaroo Flat" });
    }
    const sesOnly = data.find((a) => toSes.includes(a.id) && !toKf.includes(a.id))!;
    expect(sesOnly.units).toEqual([{ id: unitId.SESB, name: "Bendigo SES Unit" }]);
  });

  it("hides machine and test pages from members unless asked for, and shows them to admins", async () => {
    const machine = await page([KF1], "@@)&)E51TIMEUPDATE 20261127 134500");
    const test = await page([KF1], "QD TEST PAGE PLEASE IGNORE");
    const shown = (await call("GET", "/alerts/search?limit=50", token)).json().data as { id: number }[];
    expect(shown.map((a) => a.id)).not.toContain(machine);
    expect(shown.map((a) => a.id)).not.toContain(test);
    const asked = (await call("GET", "/alerts/search?limit=50&show_machine=true", token)).json().data;
    expect(asked.find((a: { id: number }) => a.id === machine)).toMatchObject({
      type: "administrative",
      is_machine: true,
    });
    const admin = (await call("GET", "/alerts/search?limit=50&admin_context=true", adminToken)).json().data;
    expect(admin.map((a: { id: number }) => a.id)).toEqual(expect.arrayContaining([machine, test]));
  });
});

describe("push and keyword rules follow the units", () => {
  it("pushes a unit member their units' emergencies by default, and the agency's when they ask", async () => {
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    await app.db.insert(userUnits).values({ userId: member.id, unitId: unitId.KF! });
    const token = await signIn(app, member.phone, `device-${member.id}`);
    const subscription = standIn.createSubscription();
    expect(
      (await call("PUT", "/push/subscription", token, { ...subscription, expiration_time: null })).statusCode,
    ).toBe(200);
    const pushes = () =>
      standIn.received
        .filter((r) => subscription.endpoint.endsWith(`/push/${r.subscriptionId}`))
        .map((r) => (r.payload as { body: string }).body);
    const prefs = (await call("GET", "/push/preferences", token)).json();
    expect(prefs.agencies).toEqual([
      expect.objectContaining({
        agency_id: agencyId.CFA,
        mode: "units",
        units: [{ id: unitId.KF, name: "Kangaroo Flat" }],
      }),
    ]);
    await page([HH], `@@ALERT ${nextJob()} STRUC1 NOT OUR BRIGADE`);
    await page([KF1], `@@ALERT ${nextJob()} STRUC1 OUR BRIGADE`);
    await standIn.waitFor(() => pushes().length === 1);
    await app.ruleMatcher.runOnce();
    await app.push.worker.runOnce();
    expect(pushes()).toEqual([expect.stringContaining("OUR BRIGADE")]);
    await call("PUT", "/push/preferences", token, {
      agencies: [{ agency_id: agencyId.CFA, mode: "emergency" }],
    });
    await page([HH], `@@ALERT ${nextJob()} STRUC1 WHOLE AGENCY NOW`);
    await standIn.waitFor(() => pushes().length === 2);
  });

  it("fires a member's rule for their units' pages only, unless it asks for the whole agency", async () => {
    const member = await createUser(app, { agencyCodes: ["CFA"] });
    await app.db.insert(userUnits).values({ userId: member.id, unitId: unitId.KF! });
    const [rule] = await app.db
      .insert(userAlertRules)
      .values({ userId: member.id, name: "Struc", keywords: ["wombelano"], status: "approved" })
      .returning();
    app.ruleMatcher.rulesChanged();
    await app.ruleMatcher.runOnce();
    const texted = () =>
      readOutbox(app)
        .filter((m) => m.to === member.phone)
        .map((m) => m.body);
    await page([HH], `@@ALERT ${nextJob()} STRUC1 WOMBELANO ELSEWHERE`);
    await page([KF2], `Hb ${nextJob()} STRUC1 WOMBELANO AT HOME`);
    await app.ruleMatcher.runOnce();
    await app.smsWorker.runOnce();
    expect(texted()).toEqual([expect.stringContaining("WOMBELANO AT HOME")]);
    await app.db.update(userAlertRules).set({ unitsOnly: false }).where(eq(userAlertRules.id, rule!.id));
    await page([HH], `@@ALERT ${nextJob()} STRUC1 WOMBELANO WIDER`);
    await app.ruleMatcher.runOnce();
    await app.smsWorker.runOnce();
    expect(texted()).toHaveLength(2);
  });
});

describe("the capcode CSV with units", () => {
  it("sets units from a unit column, creating missing ones, and joins aliases' units on request", async () => {
    const csv = [
      "address,agency,alias,unit",
      "1400201,CFA,Golden Square FB,Golden Square; Bendigo Group",
      "1400202,CFA,Golden Square FB non-emerg,Golden Square",
      `${KF1},CFA,Kangaroo Flat,Kangaroo Flat; Bendigo Group`,
    ].join("\n");
    const dry = (await call("POST", "/admin/capcodes/import", adminToken, { csv, dry_run: true })).json()
      .data;
    expect(dry.units_created).toEqual([
      { agency: "CFA", name: "Golden Square" },
      { agency: "CFA", name: "Bendigo Group" },
    ]);
    expect(dry.changed).toEqual([
      expect.objectContaining({
        capcode: KF1,
        from: expect.objectContaining({ units: ["Kangaroo Flat"] }),
        to: expect.objectContaining({ units: ["Kangaroo Flat", "Bendigo Group"] }),
      }),
    ]);
    expect((await app.db.select().from(units).where(eq(units.name, "Golden Square"))).length).toBe(0);
    const applied = (await call("POST", "/admin/capcodes/import", adminToken, { csv, dry_run: false })).json()
      .data;
    expect(applied.applied).toBe(true);
    const listed = (await call("GET", `/admin/agencies/${agencyId.CFA}/units`, adminToken)).json().data as {
      name: string;
      capcodes: { capcode: string }[];
    }[];
    const named = (name: string) => listed.find((u) => u.name === name)!.capcodes.map((c) => c.capcode);
    expect(named("Golden Square")).toEqual(["1400201", "1400202"]);
    expect(named("Bendigo Group")).toEqual([KF1, "1400201"]);
    expect(listed.find((u) => u.name === "Golden Square")).toMatchObject({ suburb: "Golden Square" });
    const again = (await call("POST", "/admin/capcodes/import", adminToken, { csv, dry_run: true })).json()
      .data;
    expect(again).toMatchObject({ created: [], changed: [], units_created: [] });

    const pagermon = ["address,agency,alias", "1400301,SES,Bendigo SES Unit"].join("\n");
    const fromAlias = await call("POST", "/admin/capcodes/import", adminToken, {
      csv: pagermon,
      dry_run: false,
      units_from_alias: true,
    });
    expect(fromAlias.json().data.units_created).toEqual([]);
    const ses = (await call("GET", `/admin/agencies/${agencyId.SES}/units`, adminToken)).json().data;
    expect(ses[0].capcodes.map((c: { capcode: string }) => c.capcode)).toEqual([SESB, "1400301"]);
    const exported = (await call("GET", "/admin/capcodes/export", adminToken)).body;
    expect(exported).toContain(`${KF1},Kangaroo Flat,CFA,,,{},0,,Bendigo Group; Kangaroo Flat`);
  });
});

describe.skipIf(!process.env.REDIS_URL)("unit rooms on the live channel", () => {
  it("sends a unit member their units' alerts from another instance, and the agency's in the agencies view", async () => {
    await withTwoInstances({ INGEST_API_KEY: KEY }, async (a, b, urlOf) => {
      const rows = await a.db.select().from(agencies);
      const cfa = rows.find((x) => x.code === "CFA")!.id;
      const made = await a.db
        .insert(capcodes)
        .values([
          { capcode: "1400401", agencyId: cfa },
          { capcode: "1400402", agencyId: cfa },
        ])
        .returning();
      const [unit] = await a.db.insert(units).values({ agencyId: cfa, name: "Ours" }).returning();
      await a.db.insert(unitCapcodes).values({ unitId: unit!.id, capcodeId: made[0]!.id });
      const member = await createUser(a, { agencyCodes: ["CFA"] });
      await a.db.insert(userUnits).values({ userId: member.id, unitId: unit!.id });
      const token = await signIn(b, member.phone);
      const socket: Socket = connect(urlOf(b), {
        transports: ["polling"],
        auth: { token },
        reconnection: false,
        forceNew: true,
      });
      const got: { message: string; units: { name: string }[] }[] = [];
      socket.on("new-alert", (alert) => got.push(alert));
      const join = (payload?: unknown) =>
        new Promise<{ view: string; units: { name: string }[] }>((resolve) =>
          socket.once("joined-user-agencies", resolve).emit("join-user-agencies", payload),
        );
      try {
        expect(await join()).toMatchObject({ view: "units", units: [{ name: "Ours" }] });
        await page(["1400402"], "@@ALERT F261450001 NOT OURS", a);
        await page(["1400401"], "@@ALERT F261450002 OURS", a);
        await expect
          .poll(() => got.map((g) => g.message), { timeout: 5000 })
          .toContain("ALERT F261450002 OURS");
        expect(got.map((g) => g.message)).toEqual(["ALERT F261450002 OURS"]);
        expect(got[0]!.units).toEqual([{ id: unit!.id, name: "Ours" }]);
        expect(await join({ view: "agencies" })).toMatchObject({ view: "agencies" });
        await page(["1400402"], "@@ALERT F261450003 WHOLE AGENCY", a);
        await expect.poll(() => got.length, { timeout: 5000 }).toBe(2);
      } finally {
        socket.close();
      }
    });
  });
});
