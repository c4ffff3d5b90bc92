import { createServer, type Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import { type Socket as ClientSocket, io as connect } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../test/build-app.js";
import { createUser, signIn } from "../../test/factories.js";
import { withTwoInstances } from "../../test/two-instances.js";
import { agencies, capcodes } from "../db/schema.js";
import { AlertFanout, boundAlertQueue, queuedPackets, REFRESH_EVENT } from "./alert-fanout.js";

type Refresh = { count: number; newest: { id: number } };

describe("AlertFanout (a room's token bucket)", () => {
  afterEach(() => vi.useRealTimers());

  it("emits ordinary alerts at once and coalesces what exceeds the bucket into one refresh per interval", () => {
    vi.useFakeTimers();
    const sent: { room: string; event: string; payload: unknown }[] = [];
    const presented: number[] = [];
    const fanout = new AlertFanout((room, event, payload) => sent.push({ room, event, payload }), {
      capacity: 3,
      refillPerSecond: 1,
      intervalMs: 1000,
    });
    const offer = (room: string, id: number) =>
      fanout.offer(room, id, () => {
        presented.push(id);
        return { id };
      });

    for (let id = 1; id <= 50; id++) offer("a", id);
    offer("b", 51);
    expect(sent.map((s) => [s.room, s.event])).toEqual([
      ["a", "new-alert"],
      ["a", "new-alert"],
      ["a", "new-alert"],
      ["b", "new-alert"],
    ]);
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toEqual({
      room: "a",
      event: REFRESH_EVENT,
      payload: { count: 47, newest: { id: 50 } },
    });
    // Only what was emitted was presented: the three single alerts, b's, and the refresh's newest.
    expect(presented).toEqual([1, 2, 3, 51, 50]);

    // Still in the burst: the next alert waits for the next refresh.
    offer("a", 52);
    vi.advanceTimersByTime(1000);
    expect(sent.at(-1)).toEqual({
      room: "a",
      event: REFRESH_EVENT,
      payload: { count: 1, newest: { id: 52 } },
    });
    // After an interval without alerts the burst is over and the bucket has refilled.
    vi.advanceTimersByTime(1000);
    offer("a", 53);
    expect(sent.at(-1)).toEqual({ room: "a", event: "new-alert", payload: { id: 53 } });
    fanout.close();
  });
});

describe("boundAlertQueue (a client that does not come back for its packets)", () => {
  let http: HttpServer;
  let io: Server;
  let base: string;

  beforeAll(async () => {
    http = createServer();
    io = new Server(http, { path: "/socket.io", transports: ["polling"] });
    io.on("connection", (socket) => {
      boundAlertQueue(socket, 5);
      void socket.join("room");
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const address = http.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/socket.io/?EIO=4&transport=polling`;
  });
  afterAll(async () => {
    io.close();
    await new Promise((resolve) => http.close(resolve));
  });

  /** One long-polling GET: the engine.io packets the server had queued. */
  const poll = async (sid: string) =>
    (await (await fetch(`${base}&sid=${sid}`)).text()).split("\x1e").filter((p) => p !== "");

  it("queues no more than the bound of alert events, owes one refresh for the rest, and lets other events through", async () => {
    const open = JSON.parse((await (await fetch(base)).text()).slice(1)) as { sid: string };
    await fetch(`${base}&sid=${open.sid}`, { method: "POST", body: "40" });
    expect((await poll(open.sid))[0]).toMatch(/^40/);
    await vi.waitFor(() => expect(io.sockets.adapter.rooms.get("room")?.size).toBe(1));
    const [socket] = await io.fetchSockets();
    const local = io.of("/").sockets.get(socket!.id)!;

    for (let id = 1; id <= 100; id++) io.to("room").emit("new-alert", { id });
    io.to("room").emit(REFRESH_EVENT, { count: 20, newest: { id: 120 } });
    io.to("room").emit("session-ended", { reason: "terminated" });
    expect(queuedPackets(local)).toBe(6);

    const first = await poll(open.sid);
    expect(first).toEqual([
      ...[1, 2, 3, 4, 5].map((id) => `42["new-alert",{"id":${id}}]`),
      '42["session-ended",{"reason":"terminated"}]',
    ]);
    // The owed refresh is queued as the buffer drains: 95 alerts held back plus the refresh's 20.
    expect(await poll(open.sid)).toEqual([`42["${REFRESH_EVENT}",{"count":115,"newest":{"id":120}}]`]);
  });
});

describe("live delivery under a burst (real app, polling clients)", () => {
  const KEY = "live-burst-ingest-key-0000";
  let app: TestApp;
  let url: string;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    app = await buildTestApp({ INGEST_API_KEY: KEY });
    const [cfa] = (await app.db.select().from(agencies)).filter((a) => a.code === "CFA");
    await app.db.insert(capcodes).values({ capcode: "0700001", agencyId: cfa!.id });
    url = await listenLocally(app);
  });
  afterAll(async () => {
    for (const s of sockets.splice(0)) s.disconnect();
    await app.cleanup();
  });

  async function member(): Promise<{ alerts: number[]; refreshes: Refresh[] }> {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const s = connect(url, {
      transports: ["polling"],
      auth: { token: await signIn(app, user.phone) },
      reconnection: false,
      forceNew: true,
    });
    sockets.push(s);
    const joined = new Promise((resolve) => s.once("joined-user-agencies", resolve));
    s.on("connect", () => s.emit("join-user-agencies"));
    await joined;
    const got = { alerts: [] as number[], refreshes: [] as Refresh[] };
    s.on("new-alert", (a: { id: number }) => got.alerts.push(a.id));
    s.on(REFRESH_EVENT, (r: Refresh) => got.refreshes.push(r));
    return got;
  }

  const ingest = async (texts: string[]) => {
    const res = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { authorization: `Bearer ${KEY}` },
      payload: { messages: texts.map((message) => ({ capcode: "0700001", message })) },
    });
    expect(res.statusCode).toBe(200);
    return (res.json().data as { id: number }[]).map((a) => a.id);
  };

  it("delivers a single alert at once as new-alert", async () => {
    const got = await member();
    const [id] = await ingest(["@@ALERT F251200001 SINGLE HOUSE FIRE"]);
    const replied = Date.now();
    await expect.poll(() => got.alerts, { timeout: 1000, interval: 20 }).toContain(id);
    expect(Date.now() - replied).toBeLessThan(1000);
    expect(got.refreshes).toEqual([]);
  });

  it("gives each client of a 300-alert burst a few events, a refresh among them, accounting for every alert", async () => {
    await new Promise((r) => setTimeout(r, 1500)); // the room's bucket refills after the test above
    const clients = [await member(), await member(), await member()];
    const ids: number[] = [];
    for (let batch = 0; batch < 3; batch++)
      ids.push(
        ...(await ingest(
          Array.from(
            { length: 100 },
            (_, i) => `@@ALERT F2512${batch}${String(i).padStart(4, "0")} BURST ${i}`,
          ),
        )),
      );
    const newest = Math.max(...ids);
    for (const got of clients) {
      const seen = () => [...got.alerts, ...got.refreshes.map((r) => r.newest.id)];
      await expect.poll(seen, { timeout: 5000 }).toContain(newest);
      const events = got.alerts.length + got.refreshes.length;
      expect(events).toBeLessThan(40);
      expect(got.refreshes.length).toBeGreaterThan(0);
      expect(got.alerts.length + got.refreshes.reduce((n, r) => n + r.count, 0)).toBe(300);
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)("a burst ingested on another instance (Redis adapter)", () => {
  const KEY = "live-burst-ingest-key-0001";

  it("is coalesced by the ingesting instance and reaches a client of the other one bounded", async () => {
    await withTwoInstances({ INGEST_API_KEY: KEY }, async (a, b, urlOf) => {
      const [cfa] = (await a.db.select().from(agencies)).filter((x) => x.code === "CFA");
      await a.db.insert(capcodes).values({ capcode: "0700002", agencyId: cfa!.id });
      const user = await createUser(b, { agencyCodes: ["CFA"] });
      const s = connect(urlOf(b), {
        transports: ["polling"],
        auth: { token: await signIn(b, user.phone) },
        reconnection: false,
        forceNew: true,
      });
      try {
        const joined = new Promise((resolve) => s.once("joined-user-agencies", resolve));
        s.on("connect", () => s.emit("join-user-agencies"));
        await joined;
        const alerts: number[] = [];
        const refreshes: Refresh[] = [];
        s.on("new-alert", (x: { id: number }) => alerts.push(x.id));
        s.on(REFRESH_EVENT, (r: Refresh) => refreshes.push(r));
        const res = await a.inject({
          method: "POST",
          url: "/api/ingest/messages",
          headers: { authorization: `Bearer ${KEY}` },
          payload: {
            messages: Array.from({ length: 200 }, (_, i) => ({
              capcode: "0700002",
              message: `@@ALERT F2513${String(i).padStart(5, "0")} ACROSS ${i}`,
            })),
          },
        });
        const newest = Math.max(...(res.json().data as { id: number }[]).map((x) => x.id));
        await expect
          .poll(() => [...alerts, ...refreshes.map((r) => r.newest.id)], { timeout: 5000 })
          .toContain(newest);
        expect(alerts.length + refreshes.length).toBeLessThan(20);
        expect(alerts.length + refreshes.reduce((n, r) => n + r.count, 0)).toBe(200);
      } finally {
        s.disconnect();
      }
    });
  });
});
