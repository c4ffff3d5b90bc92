import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import {
  agencies,
  capcodes,
  deviceSessions,
  displayPairings,
  unitCapcodes,
  units,
  userUnits,
} from "../../db/schema.js";
import { PAIRING_TTL_MS, startPairing } from "./service.js";

const KEY = "displays-test-ingest-key-000";
let app: TestApp;
let adminToken: string;
let memberToken: string;
let outsiderToken: string;
let otherAgencyToken: string;
let unitId: number;
const agencyId: Record<string, number> = {};

type Board = {
  unit: { name: string; station: { latitude: number; longitude: number } | null };
  jobs: {
    id: number;
    message: string;
    responders: { name: string; eta_minutes: number | null }[];
    others_responding: number;
    not_available: number;
    position: { precision: string } | null;
  }[];
};

const call = (
  method: "GET" | "POST" | "PUT" | "DELETE",
  url: string,
  headers: Record<string, string>,
  payload?: object,
) =>
  app.inject({
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
const asAdmin = (method: "GET" | "POST" | "DELETE", url: string, payload?: object) =>
  call(method, url, { authorization: `Bearer ${adminToken}` }, payload);
const asScreen = (
  secret: string,
  url: string,
  method: "GET" | "POST" | "PUT" | "DELETE" = "GET",
  payload?: object,
) => call(method, url, { "x-display-token": secret }, payload);

async function ingest(capcode: string, message: string): Promise<number> {
  const res = await call(
    "POST",
    "/api/ingest/messages",
    { authorization: `Bearer ${KEY}` },
    { messages: [{ capcode, message }] },
  );
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number }[])[0]!.id;
}

/** A screen asks for a code; an admin creates a display and pairs it. Returns the screen's token. */
async function pairedScreen(name = "Station TV"): Promise<{ secret: string; displayId: number }> {
  const started = await call("POST", "/api/display/pairing", {});
  expect(started.statusCode).toBe(200);
  const { secret, code } = started.json().data as { secret: string; code: string };
  const created = await asAdmin("POST", "/api/admin/displays", { unit_id: unitId, name, idle_minutes: 20 });
  expect(created.statusCode).toBe(201);
  const displayId = created.json().data.id as number;
  const paired = await asAdmin("POST", `/api/admin/displays/${displayId}/pair`, { code: code.toLowerCase() });
  expect(paired.statusCode).toBe(200);
  return { secret, displayId };
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  const [ours, theirs] = await app.db
    .insert(capcodes)
    .values([
      { capcode: "0350001", agencyId: agencyId.CFA! },
      { capcode: "0350002", agencyId: agencyId.CFA! },
      { capcode: "0450001", agencyId: agencyId.SES! },
    ])
    .returning();
  const [unit, otherUnit] = await app.db
    .insert(units)
    .values([
      { agencyId: agencyId.CFA!, name: "Kangaroo Flat", latitude: -36.79, longitude: 144.24 },
      { agencyId: agencyId.CFA!, name: "Golden Square" },
    ])
    .returning();
  unitId = unit!.id;
  await app.db.insert(unitCapcodes).values([
    { unitId: unit!.id, capcodeId: ours!.id },
    { unitId: otherUnit!.id, capcodeId: theirs!.id },
  ]);
  const admin = await createUser(app, { agencyCodes: [], isAdmin: true });
  adminToken = await signIn(app, admin.phone);
  const member = await createUser(app, { agencyCodes: ["CFA"], firstName: "Alex" });
  await app.db.insert(userUnits).values({ userId: member.id, unitId: unit!.id });
  memberToken = await signIn(app, member.phone);
  outsiderToken = await signIn(
    app,
    (await createUser(app, { agencyCodes: ["CFA"], firstName: "Outsider" })).phone,
  );
  otherAgencyToken = await signIn(
    app,
    (await createUser(app, { agencyCodes: ["SES"], firstName: "Sesame" })).phone,
  );
});
afterAll(() => app.cleanup());

describe("pairing a station screen (issue 34)", () => {
  it("shows a code, waits, and becomes the display once an admin enters the code", async () => {
    const sessionsBefore = (await app.db.select().from(deviceSessions)).length;
    const started = await call("POST", "/api/display/pairing", {});
    const { secret, code } = started.json().data as { secret: string; code: string; expires_at: string };
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{6}$/);
    expect((await asScreen(secret, "/api/display/pairing")).json().data).toMatchObject({ status: "waiting" });
    expect((await asScreen(secret, "/api/display/board")).statusCode).toBe(401);

    const created = await asAdmin("POST", "/api/admin/displays", { unit_id: unitId, name: "Engine bay" });
    const id = created.json().data.id as number;
    const paired = await asAdmin("POST", `/api/admin/displays/${id}/pair`, {
      code: `${code.slice(0, 3)}-${code.slice(3)}`,
    });
    expect(paired.json().data).toMatchObject({
      name: "Engine bay",
      unit_name: "Kangaroo Flat",
      paired: true,
    });
    expect((await asScreen(secret, "/api/display/pairing")).json().data).toEqual({
      status: "paired",
      display: "Engine bay",
    });
    expect((await asScreen(secret, "/api/display/board")).statusCode).toBe(200);
    // A display is nobody's device: no session was made, so no device limit counts it.
    expect((await app.db.select().from(deviceSessions)).length).toBe(sessionsBefore);
  });

  it("takes a code once", async () => {
    const { code } = (await call("POST", "/api/display/pairing", {})).json().data as { code: string };
    const created = await asAdmin("POST", "/api/admin/displays", { unit_id: unitId, name: "Second" });
    const id = created.json().data.id as number;
    expect((await asAdmin("POST", `/api/admin/displays/${id}/pair`, { code })).statusCode).toBe(200);
    const again = await asAdmin("POST", `/api/admin/displays/${id}/pair`, { code });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/No screen shows that code/);
  });

  it("refuses an expired code, and the screen that showed it learns so", async () => {
    const old = await startPairing(app.db, new Date(Date.now() - PAIRING_TTL_MS - 1000));
    const created = await asAdmin("POST", "/api/admin/displays", { unit_id: unitId, name: "Late" });
    const res = await asAdmin("POST", `/api/admin/displays/${created.json().data.id}/pair`, {
      code: old.code,
    });
    expect(res.statusCode).toBe(400);
    expect((await asScreen(old.secret, "/api/display/pairing")).statusCode).toBe(401);
    // The next screen's request clears it away.
    await call("POST", "/api/display/pairing", {});
    expect(await app.db.select().from(displayPairings).where(eq(displayPairings.code, old.code))).toEqual([]);
  });

  it("lets only admins create and pair displays, with clear errors for bad input", async () => {
    const member = await call(
      "POST",
      "/api/admin/displays",
      { authorization: `Bearer ${memberToken}` },
      { unit_id: unitId, name: "x" },
    );
    expect(member.statusCode).toBe(403);
    expect((await asAdmin("POST", "/api/admin/displays", { unit_id: 999999, name: "x" })).statusCode).toBe(
      400,
    );
    expect((await asAdmin("POST", "/api/admin/displays", { unit_id: unitId, name: " " })).statusCode).toBe(
      400,
    );
    expect((await asAdmin("POST", "/api/admin/displays/999999/pair", { code: "ABCDEF" })).statusCode).toBe(
      404,
    );
    const list = await asAdmin("GET", "/api/admin/displays");
    expect(list.json().data.length).toBeGreaterThanOrEqual(3);
    const unitList = await asAdmin("GET", "/api/admin/displays/units");
    expect(unitList.json().data).toEqual(
      expect.arrayContaining([{ id: unitId, name: "Kangaroo Flat", agency_name: expect.any(String) }]),
    );
  });
});

describe("what a display may do", () => {
  it("reads its unit's jobs only, and names only its unit's responders", async () => {
    const { secret } = await pairedScreen();
    const ours = await ingest(
      "0350001",
      "@@ALERT F261127201 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT [KANG]",
    );
    await ingest("0350002", "@@ALERT F261127202 GOLD1 ALARC1 AFA 22 UNDERWOOD ST GOLDEN SQUARE [GOLD]");
    await ingest("0450001", "@@ALERT S261127203 SES VICSES TREE DOWN 9 BAY ST GEELONG [SES]");
    for (const [token, status, eta] of [
      [memberToken, "responding", 5],
      [outsiderToken, "responding", 10],
    ] as const) {
      const res = await call(
        "PUT",
        `/api/alerts/${ours}/response`,
        { authorization: `Bearer ${token}` },
        { status, eta_minutes: eta },
      );
      expect(res.statusCode).toBe(200);
    }
    const board = (await asScreen(secret, "/api/display/board")).json().data as Board;
    expect(board.unit).toEqual({
      name: "Kangaroo Flat",
      id: unitId,
      station: { latitude: -36.79, longitude: 144.24 },
    });
    expect(board.jobs.map((j) => j.id)).toEqual([ours]);
    expect(board.jobs[0]).toMatchObject({
      responders: [{ name: "Alex T.", eta_minutes: 5 }],
      others_responding: 1,
      not_available: 0,
    });
    expect(JSON.stringify(board)).not.toMatch(/Outsider|Sesame|GOLDEN SQUARE|GEELONG/);
    // The SES member's answer could not even be given: not their agency.
    const ses = await call(
      "PUT",
      `/api/alerts/${ours}/response`,
      { authorization: `Bearer ${otherAgencyToken}` },
      { status: "responding" },
    );
    expect(ses.statusCode).toBe(404);
  });

  it("cannot answer, post, search or read the admin routes with its token", async () => {
    const { secret } = await pairedScreen("Locked down");
    const id = await ingest(
      "0350001",
      "@@ALERT F261127204 KANG1 G&SC1 GRASS FIRE 3 HIGH ST KANGAROO FLAT [KANG]",
    );
    const bearer = { authorization: `Bearer ${secret}` };
    const header = { "x-display-token": secret };
    for (const headers of [bearer, header]) {
      expect(
        (await call("PUT", `/api/alerts/${id}/response`, headers, { status: "responding" })).statusCode,
      ).toBe(401);
      expect((await call("GET", "/api/alerts/search", headers)).statusCode).toBe(401);
      expect((await call("GET", `/api/alerts/${id}/responses`, headers)).statusCode).toBe(401);
      expect((await call("POST", "/api/feedback/conversations", headers, { message: "hi" })).statusCode).toBe(
        401,
      );
      expect((await call("GET", "/api/admin/displays", headers)).statusCode).toBe(401);
    }
  });

  it("stops working once unpaired or removed", async () => {
    const { secret, displayId } = await pairedScreen("Short lived");
    expect((await asScreen(secret, "/api/display/board")).statusCode).toBe(200);
    expect((await asAdmin("POST", `/api/admin/displays/${displayId}/unpair`)).statusCode).toBe(200);
    expect((await asScreen(secret, "/api/display/board")).statusCode).toBe(401);
    expect((await asAdmin("DELETE", `/api/admin/displays/${displayId}`)).statusCode).toBe(200);
    expect((await asAdmin("DELETE", `/api/admin/displays/${displayId}`)).statusCode).toBe(404);
  });
});
