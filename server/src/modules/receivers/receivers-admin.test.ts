import { eq } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { agencies, capcodes, receivers } from "../../db/schema.js";
import { checkMonitor } from "./checker.js";

// Issue 33, the admin's side: changing a receiver, which receivers heard an alert (admins only), and
// the live `receivers:changed` that keeps the Receivers tab current.

const LEGACY_KEY = "receivers-admin-legacy-key-000";
let app: TestApp;
let admin: string;
let member: string;
let cfa: number;
let ses: number;
let url: string;
const sockets: Socket[] = [];

const as =
  (token: () => string) => (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, payload?: object) =>
    app.inject({
      method,
      url: path,
      headers: { authorization: `Bearer ${token()}` },
      ...(payload ? { payload } : {}),
    });
const asAdmin = as(() => admin);
const asMember = as(() => member);

const ingestWith = (key: string, capcode: string, message: string) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${key}` },
    payload: { capcode, message },
  });

let seq = 0;
async function register(body: object = {}) {
  const res = await asAdmin("POST", "/api/admin/receivers", { name: `Admin Rx ${++seq}`, ...body });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: number; name: string; key: { key: string } };
}

const listed = async (id: number) =>
  (await asAdmin("GET", "/api/admin/receivers")).json().data.find((r: { id: number }) => r.id === id);

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: LEGACY_KEY });
  admin = await signIn(app, (await createUser(app, { isAdmin: true })).phone);
  member = await signIn(app, (await createUser(app, { agencyCodes: ["CFA"] })).phone);
  const rows = await app.db.select().from(agencies);
  cfa = rows.find((a) => a.code === "CFA")!.id;
  ses = rows.find((a) => a.code === "SES")!.id;
  await app.db.insert(capcodes).values([
    { capcode: "0300001", agencyId: cfa, area: "Kyneton" },
    { capcode: "0300002", agencyId: cfa, area: "Kyneton" },
  ]);
  url = await listenLocally(app);
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await app.cleanup();
});

describe("changing a receiver (PATCH /api/admin/receivers/:id)", () => {
  it("changes the fields the register form has, and an empty location or quiet period clears it", async () => {
    const rx = await register({
      location: "Shed",
      expected_capcodes: ["0300001"],
      quiet_after_seconds: 7200,
    });
    const res = await asAdmin("PATCH", `/api/admin/receivers/${rx.id}`, {
      name: "  Kyneton hill  ",
      location: "Water tower",
      expected_capcodes: ["0300002", "0300002"],
      expected_agency_ids: [ses],
      heartbeat_interval_seconds: 120,
      down_after_seconds: 1800,
      quiet_after_seconds: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: rx.id,
      name: "Kyneton hill",
      location: "Water tower",
      expected_capcodes: ["0300002"],
      expected_agency_ids: [ses],
      heartbeat_interval_seconds: 120,
      down_after_seconds: 1800,
      quiet_after_seconds: null,
    });
    // The list shows it, with the agencies it is expected to hear (its own and its capcodes').
    expect(await listed(rx.id)).toMatchObject({ name: "Kyneton hill", agency_ids: [ses, cfa] });

    const cleared = await asAdmin("PATCH", `/api/admin/receivers/${rx.id}`, { location: "" });
    expect(cleared.json().data).toMatchObject({ location: null, name: "Kyneton hill" });
    // Its key keeps working.
    expect((await ingestWith(rx.key.key, "0300001", "@@ALERT F261100001 STILL HEARD")).statusCode).toBe(200);
  });

  it("refuses bad changes with the field named, and leaves the receiver as it was", async () => {
    const rx = await register();
    const cases: [object, string][] = [
      [{}, "at least one field"],
      [{ name: "" }, "name is required"],
      [{ name: "x".repeat(101) }, "name must be at most 100 characters"],
      [{ heartbeat_interval_seconds: 1 }, "heartbeat_interval_seconds"],
      [{ down_after_seconds: 12.5 }, "down_after_seconds"],
      [{ quiet_after_seconds: "soon" }, "quiet_after_seconds"],
      [{ expected_capcodes: ["12A"] }, "A capcode is 1 to 10 digits."],
      [{ expected_agency_ids: [999_999] }, "Unknown agency ids: 999999"],
    ];
    for (const [body, says] of cases) {
      const res = await asAdmin("PATCH", `/api/admin/receivers/${rx.id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(says);
    }
    expect(await listed(rx.id)).toMatchObject({ name: rx.name, heartbeat_interval_seconds: 60 });
    expect((await asAdmin("PATCH", "/api/admin/receivers/999999", { name: "Y" })).statusCode).toBe(404);
    const deleted = await register();
    await asAdmin("DELETE", `/api/admin/receivers/${deleted.id}`);
    expect((await asAdmin("PATCH", `/api/admin/receivers/${deleted.id}`, { name: "Back" })).statusCode).toBe(
      404,
    );
  });

  it("refuses a member with 403 before reading the body, and changes nothing", async () => {
    const rx = await register();
    const refused = await asMember("PATCH", `/api/admin/receivers/${rx.id}`, { name: "Mine now" });
    expect(refused.statusCode).toBe(403);
    // A malformed body is still a 403: the role is checked first.
    const malformed = await asMember("PATCH", `/api/admin/receivers/${rx.id}`, { name: 42 });
    expect(malformed.statusCode).toBe(403);
    expect((await listed(rx.id)).name).toBe(rx.name);
  });
});

describe("which receivers heard an alert", () => {
  it("lists every receiver that heard it, merged pages and the legacy key included, for admins only", async () => {
    const a = await register({ location: "Kyneton hill" });
    const b = await register();
    const text = "@@ALERT F261100777 STRUC1 SHED FIRE 7 HIGH ST KYNETON";
    const first = await ingestWith(a.key.key, "0300001", text);
    const alertId = first.json().data[0].id as number;
    // b hears the same page to another capcode: merged into the same alert.
    const merged = await ingestWith(b.key.key, "0300002", text);
    expect(merged.json().data[0]).toMatchObject({ id: alertId, status: "merged" });
    // a hears it again: a duplicate, counted against a.
    expect((await ingestWith(a.key.key, "0300001", text)).json().data[0].status).toBe("duplicate");
    await ingestWith(LEGACY_KEY, "0300001", text);

    const heard = await asAdmin("GET", `/api/admin/alerts/${alertId}/receivers`);
    expect(heard.statusCode).toBe(200);
    const rows = heard.json().data as { receiver_id: number; name: string; kind: string; messages: number }[];
    expect(rows.map((r) => r.receiver_id).slice(0, 2)).toEqual([a.id, b.id]);
    expect(rows.find((r) => r.receiver_id === a.id)).toMatchObject({
      name: a.name,
      messages: 2,
      deleted: false,
    });
    expect(rows.find((r) => r.receiver_id === b.id)).toMatchObject({ messages: 1 });
    expect(rows.some((r) => r.kind === "legacy")).toBe(true);

    // A deleted receiver still shows as having heard it.
    await asAdmin("DELETE", `/api/admin/receivers/${b.id}`);
    const after = (await asAdmin("GET", `/api/admin/alerts/${alertId}/receivers`)).json().data;
    expect(after.find((r: { receiver_id: number }) => r.receiver_id === b.id)).toMatchObject({
      deleted: true,
    });

    // Members see the alert, never who heard it.
    expect((await asMember("GET", `/api/admin/alerts/${alertId}/receivers`)).statusCode).toBe(403);
    const job = await asMember("GET", `/api/alerts/${alertId}`);
    expect(job.statusCode).toBe(200);
    expect(JSON.stringify(job.json())).not.toContain(a.name);
    expect(JSON.stringify(job.json())).not.toContain("receiver");
  });

  it("answers 404 for an alert that does not exist and 400 for a malformed id", async () => {
    expect((await asAdmin("GET", "/api/admin/alerts/987654321/receivers")).statusCode).toBe(404);
    expect((await asAdmin("GET", "/api/admin/alerts/abc/receivers")).statusCode).toBe(400);
  });
});

describe("live: receivers:changed to the admins", () => {
  const open = (token: string) => {
    const s = connect(url, { transports: ["polling"], auth: { token }, reconnection: false, forceNew: true });
    sockets.push(s);
    return s;
  };
  const collect = (s: Socket) => {
    const got: { receiver_ids: number[] }[] = [];
    s.on("receivers:changed", (p: { receiver_ids: number[] }) => got.push(p));
    return got;
  };
  const joinAdmin = async (s: Socket) => {
    const joined = new Promise((resolve) => s.once("joined-admin", resolve));
    s.emit("join-admin");
    await joined;
  };

  it("tells the admin room when the checker changes a state or a heartbeat ends a silence, never members", async () => {
    const a = open(admin);
    await joinAdmin(a);
    const adminGot = collect(a);
    const m = open(member);
    await new Promise<void>((resolve) => m.once("connect", () => resolve()));
    const memberGot = collect(m);

    const rx = await register({ heartbeat_interval_seconds: 60, down_after_seconds: 600 });
    // A first heartbeat ends 'not heard yet'.
    const beat = () =>
      app.inject({
        method: "POST",
        url: "/api/ingest/heartbeat",
        headers: { "x-api-key": rx.key.key },
        payload: { spool_depth: 0 },
      });
    expect((await beat()).statusCode).toBe(200);
    await expect.poll(() => adminGot.flatMap((p) => p.receiver_ids)).toContain(rx.id);

    // A round of the checker (called directly here: the next test has the running one tell the room)
    // finds it down.
    adminGot.length = 0;
    const later = () => Date.now() + 3600_000;
    const outcome = await checkMonitor(app.db, app.config.monitor, later);
    expect(outcome.receiverChanges.map((c) => c.id)).toContain(rx.id);
    const [row] = await app.db.select().from(receivers).where(eq(receivers.id, rx.id));
    expect(row!.state).toBe("down");
    // Another heartbeat ends the silence: told at once, before the checker's next round.
    expect((await beat()).statusCode).toBe(200);
    await expect.poll(() => adminGot.flatMap((p) => p.receiver_ids)).toContain(rx.id);
    // Once a round has stored it as ok again, its heartbeats tell nobody.
    await checkMonitor(app.db, app.config.monitor);
    adminGot.length = 0;
    expect((await beat()).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(adminGot).toEqual([]);
    expect(memberGot).toEqual([]);
  });

  it("has the running checker tell the admin room after a round that changed states", async () => {
    const a = open(admin);
    await joinAdmin(a);
    const adminGot = collect(a);
    const rx = await register();
    await app.db
      .update(receivers)
      .set({ lastSeenAt: new Date(Date.now() - 86_400_000), state: "ok" })
      .where(eq(receivers.id, rx.id));
    app.monitorChecker.kick();
    await expect.poll(() => adminGot.flatMap((p) => p.receiver_ids), { timeout: 5000 }).toContain(rx.id);
  });
});
