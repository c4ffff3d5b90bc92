import { io as connect, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../test/build-app.js";
import { createUser, signIn } from "../../test/factories.js";
import { agencies, capcodes, unitCapcodes, units, userUnits } from "../db/schema.js";
import { DISPLAY_READS_ONLY } from "./display-sockets.js";

// A station display on the live channel (issue 34): it joins its unit's room and no other, hears its
// unit's new jobs and the answers to them, and can send nothing.

const KEY = "display-live-test-ingest-key-0";
let app: TestApp;
let url: string;
let adminToken: string;
let memberToken: string;
let unitId: number;
let otherUnitId: number;
const agencyId: Record<string, number> = {};
const sockets: Socket[] = [];

type Alert = { id: number; message: string };

function open(auth: Record<string, string>): Socket {
  const s = connect(url, { transports: ["polling"], auth, reconnection: false, forceNew: true });
  sockets.push(s);
  return s;
}

const once = <T>(s: Socket, event: string, ms = 5000) =>
  new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    s.once(event, (v: T) => {
      clearTimeout(t);
      resolve(v);
    });
  });

function collect<T>(s: Socket, event: string): T[] {
  const got: T[] = [];
  s.on(event, (v: T) => got.push(v));
  return got;
}

const admin = (method: "GET" | "POST" | "DELETE", path: string, payload?: Record<string, unknown>) =>
  app.inject({ method, url: path, headers: { authorization: `Bearer ${adminToken}` }, payload });

async function ingest(capcode: string, message: string): Promise<number> {
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { capcode, message },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number }[])[0]!.id;
}

/** A screen paired with a new display of `unit`; its token and the display's id. */
async function pairedScreen(unit = unitId): Promise<{ token: string; displayId: number }> {
  const started = await app.inject({ method: "POST", url: "/api/display/pairing" });
  const { secret, code } = started.json().data as { secret: string; code: string };
  const created = await admin("POST", "/api/admin/displays", { unit_id: unit, name: "Bay TV" });
  const displayId = created.json().data.id as number;
  expect((await admin("POST", `/api/admin/displays/${displayId}/pair`, { code })).statusCode).toBe(200);
  return { token: secret, displayId };
}

/** A display's socket, once the server has put it in its rooms. */
async function displaySocket(token: string): Promise<Socket> {
  const s = open({ displayToken: token });
  await once(s, "joined-display");
  return s;
}

/** The rooms the server holds this client's socket in (its own id's room left out). */
async function roomsOf(client: Socket): Promise<string[]> {
  const found = (await app.io.fetchSockets()).find((s) => s.id === client.id);
  return [...(found?.rooms ?? [])].filter((room) => room !== client.id).sort();
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  const [ours, neighbours, ses] = await app.db
    .insert(capcodes)
    .values([
      { capcode: "0360001", agencyId: agencyId.CFA! },
      { capcode: "0360002", agencyId: agencyId.CFA! },
      { capcode: "0460001", agencyId: agencyId.SES! },
    ])
    .returning();
  const [unit, other, sesUnit] = await app.db
    .insert(units)
    .values([
      { agencyId: agencyId.CFA!, name: "Kangaroo Flat" },
      { agencyId: agencyId.CFA!, name: "Golden Square" },
      { agencyId: agencyId.SES!, name: "Bendigo SES" },
    ])
    .returning();
  unitId = unit!.id;
  otherUnitId = other!.id;
  await app.db.insert(unitCapcodes).values([
    { unitId: unit!.id, capcodeId: ours!.id },
    { unitId: other!.id, capcodeId: neighbours!.id },
    { unitId: sesUnit!.id, capcodeId: ses!.id },
  ]);
  adminToken = await signIn(app, (await createUser(app, { agencyCodes: [], isAdmin: true })).phone);
  const member = await createUser(app, { agencyCodes: ["CFA"], firstName: "Robin" });
  await app.db.insert(userUnits).values({ userId: member.id, unitId: unit!.id });
  memberToken = await signIn(app, member.phone);
  url = await listenLocally(app);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});
afterAll(() => app.cleanup());

describe("a station display on the live channel (issue 34)", () => {
  it("joins its unit's room and no other", async () => {
    const { token, displayId } = await pairedScreen();
    const s = await displaySocket(token);
    expect(await roomsOf(s)).toEqual([`display:${displayId}`, `unit:${unitId}`].sort());
  });

  it("refuses a screen that is not paired, and a token too long to be one", async () => {
    for (const displayToken of ["not-a-display-token", "x".repeat(300)]) {
      const err = await once<Error & { data?: { reason?: string } }>(open({ displayToken }), "connect_error");
      expect(err.message).toBe("This screen is not paired with a display.");
      expect(err.data?.reason).toBe("invalid");
    }
  });

  it("cannot join another unit's, an agency's or the admins' room, nor send anything", async () => {
    const { token, displayId } = await pairedScreen();
    const s = await displaySocket(token);
    const errors = collect<{ message: string; event: string }>(s, "error");
    s.emit("join-agency", agencyId.CFA);
    s.emit("join-user-agencies", { view: "agencies" });
    s.emit("join-admin");
    s.emit("join-unit", otherUnitId);
    s.emit("test-event", { hello: 1 });
    await expect.poll(() => errors.length).toBe(5);
    expect(errors.map((e) => e.message)).toEqual(Array(5).fill(DISPLAY_READS_ONLY));
    expect(errors.map((e) => e.event)).toEqual([
      "join-agency",
      "join-user-agencies",
      "join-admin",
      "join-unit",
      "test-event",
    ]);
    expect(await roomsOf(s)).toEqual([`display:${displayId}`, `unit:${unitId}`].sort());
  });

  it("receives a new job of its unit, and none of another unit or agency", async () => {
    const { token } = await pairedScreen();
    const s = await displaySocket(token);
    const got = collect<Alert>(s, "new-alert");
    await ingest("0360002", "@@ALERT F261128101 GOLD1 ALARC1 AFA 22 UNDERWOOD ST GOLDEN SQUARE [GOLD]");
    await ingest("0460001", "@@ALERT S261128102 BEND TREE DOWN 9 BAY ST BENDIGO [SES]");
    const arrived = once<Alert>(s, "new-alert");
    const ours = await ingest(
      "0360001",
      "@@ALERT F261128103 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT [KANG]",
    );
    expect((await arrived).id).toBe(ours);
    // The other pages were published first: had the display heard them, they would be here too.
    expect(got.map((a) => a.id)).toEqual([ours]);
  });

  it("receives the answers to its unit's jobs as counts, without names", async () => {
    const { token } = await pairedScreen();
    const s = await displaySocket(token);
    const newAlert = once<Alert>(s, "new-alert");
    const job = await ingest(
      "0360001",
      "@@ALERT F261128104 KANG1 G&SC1 GRASS FIRE 3 HIGH ST KANGAROO FLAT [KANG]",
    );
    await newAlert;
    const answers = once<Record<string, unknown>>(s, "alert:responses");
    const res = await app.inject({
      method: "PUT",
      url: `/api/alerts/${job}/response`,
      headers: { authorization: `Bearer ${memberToken}` },
      payload: { status: "responding", eta_minutes: 5 },
    });
    expect(res.statusCode).toBe(200);
    expect(await answers).toEqual({ job_alert_id: job, responding: 1, not_available: 0 });
  });

  it("is signed out at once when the display is unpaired, and cannot come back", async () => {
    const { token, displayId } = await pairedScreen();
    const s = await displaySocket(token);
    const signedOut = once(s, "display-signed-out");
    const closed = once<string>(s, "disconnect");
    expect((await admin("POST", `/api/admin/displays/${displayId}/unpair`)).statusCode).toBe(200);
    await signedOut;
    expect(await closed).toBe("io server disconnect");
    const err = await once<Error>(open({ displayToken: token }), "connect_error");
    expect(err.message).toBe("This screen is not paired with a display.");
  });

  it("signs the old screen out, not the new one, when the display is paired with another screen", async () => {
    const { token: first, displayId } = await pairedScreen();
    const old = await displaySocket(first);
    const closed = once<string>(old, "disconnect");
    const started = await app.inject({ method: "POST", url: "/api/display/pairing" });
    const { secret, code } = started.json().data as { secret: string; code: string };
    expect((await admin("POST", `/api/admin/displays/${displayId}/pair`, { code })).statusCode).toBe(200);
    expect(await closed).toBe("io server disconnect");
    const next = await displaySocket(secret);
    expect(await roomsOf(next)).toContain(`unit:${unitId}`);
  });
});
