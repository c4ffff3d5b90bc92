import type { PushNotification } from "@turnout/domain";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn } from "../../../test/factories.js";
import { withTwoInstances } from "../../../test/two-instances.js";
import { agencies, capcodes, pushDeliveries, pushSubscriptions, userAlertRules } from "../../db/schema.js";
import { type PushStandIn, type StandInSubscription, startPushStandIn } from "../../testing/push-stand-in.js";

const KEY = "push-test-ingest-key-000000";
let app: TestApp;
let standIn: PushStandIn;
const agencyId: Record<string, number> = {};
let counter = 0;

const call = (
  method: "GET" | "PUT" | "DELETE" | "POST",
  url: string,
  token: string,
  payload?: unknown,
  target = app,
) =>
  target.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

async function ingest(capcode: string | string[], message: string, target = app): Promise<number> {
  const list = Array.isArray(capcode) ? capcode : [capcode];
  const res = await target.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages: list.map((c) => ({ capcode: c, message })) },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data[0].id as number;
}

/** A signed-in member of `codes` with this device subscribed at the stand-in. */
async function subscribedMember(codes: string[], target = app, phone?: string) {
  const user = await createUser(target, { agencyCodes: codes, ...(phone ? { phone } : {}) });
  const token = await signIn(target, user.phone, `device-${user.id}`);
  const subscription = standIn.createSubscription();
  const res = await call(
    "PUT",
    "/api/push/subscription",
    token,
    { ...subscription, expiration_time: null },
    target,
  );
  expect(res.statusCode).toBe(200);
  return { user, token, subscription };
}

const pushesTo = (s: StandInSubscription) =>
  standIn.received.filter((r) => s.endpoint.endsWith(`/push/${r.subscriptionId}`));

const nextJob = () => {
  counter += 1;
  return `F2613${String(counter).padStart(5, "0")}`;
};

beforeAll(async () => {
  standIn = await startPushStandIn();
  app = await buildTestApp({ INGEST_API_KEY: KEY, PUSH_EXTRA_ENDPOINT_HOSTS: "127.0.0.1" });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  await app.db.insert(capcodes).values([
    { capcode: "0900001", agencyId: agencyId.CFA!, area: "Bendigo" },
    { capcode: "0900002", agencyId: agencyId.SES!, area: "Geelong" },
  ]);
});
afterAll(async () => {
  await standIn?.close();
  await app?.cleanup();
});

describe("push subscriptions and choices", () => {
  it("gives the public key and nothing else about the keys", async () => {
    const { token } = await subscribedMember(["CFA"]);
    const res = await call("GET", "/api/push/config", token);
    expect(res.json()).toEqual({
      success: true,
      enabled: true,
      public_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/),
    });
  });

  it("refuses endpoints that are not push services, and malformed subscriptions", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const token = await signIn(app, user.phone, "device-bad");
    const keys = standIn.createSubscription().keys;
    for (const endpoint of [
      "https://evil.example.com/push/1",
      "http://fcm.googleapis.com/fcm/send/abc",
      "https://127.0.0.2/push/1",
      "https://user:pw@fcm.googleapis.com/fcm/send/abc",
      "ftp://fcm.googleapis.com/x",
    ]) {
      const res = await call("PUT", "/api/push/subscription", token, { endpoint, keys });
      expect(res.statusCode, endpoint).toBe(400);
    }
    for (const body of [{}, { endpoint: "https://fcm.googleapis.com/x" }, { endpoint: "x", keys }]) {
      expect((await call("PUT", "/api/push/subscription", token, body)).statusCode).toBe(400);
    }
    expect(
      (
        await call("PUT", "/api/push/subscription", token, {
          endpoint: "https://fcm.googleapis.com/fcm/send/a",
          keys,
        })
      ).statusCode,
    ).toBe(200);
  });

  it("keeps a member's choice per agency and refuses agencies that are not theirs", async () => {
    const { token } = await subscribedMember(["CFA", "SES"]);
    const before = (await call("GET", "/api/push/preferences", token)).json();
    expect(before.device_subscribed).toBe(true);
    expect(before.agencies.map((a: { mode: string }) => a.mode)).toEqual(["emergency", "emergency"]);
    const res = await call("PUT", "/api/push/preferences", token, {
      agencies: [{ agency_id: agencyId.SES, mode: "none" }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().agencies).toEqual(
      expect.arrayContaining([
        { agency_id: agencyId.SES, agency_name: "State Emergency Service", mode: "none", units: [] },
        { agency_id: agencyId.CFA, agency_name: "Country Fire Authority", mode: "emergency", units: [] },
      ]),
    );
    const foreign = await call("PUT", "/api/push/preferences", token, {
      agencies: [{ agency_id: agencyId.FRV, mode: "none" }],
    });
    expect(foreign.statusCode).toBe(400);
    expect(
      (await call("PUT", "/api/push/preferences", token, { agencies: [{ agency_id: 1, mode: "all" }] }))
        .statusCode,
    ).toBe(400);
    expect((await call("DELETE", "/api/push/subscription", token)).json()).toEqual({
      success: true,
      device_subscribed: false,
    });
    expect((await call("POST", "/api/push/test", token)).statusCode).toBe(409);
  });
});

describe("pushing alerts", () => {
  it("pushes an emergency page to the member's device, encrypted, signed and decryptable", async () => {
    const { subscription } = await subscribedMember(["CFA"]);
    const job = nextJob();
    const id = await ingest("0900001", `@@ALERT ${job} STRUC1 HOUSE FIRE 1 HIGH ST BENDIGO`);
    await standIn.waitFor(() => pushesTo(subscription).length === 1);
    const [push] = pushesTo(subscription);
    expect(push!.payload as PushNotification).toMatchObject({
      title: "Emergency \u00b7 CFA \u00b7 Bendigo",
      body: `ALERT ${job} STRUC1 HOUSE FIRE 1 HIGH ST BENDIGO`,
      tag: `job-${job}`,
      url: `/j/${id}`,
      alert_id: id,
      type: "emergency",
    });
    expect(push!.headers).toMatchObject({ urgency: "high", ttl: "3600", topic: `job-${job}` });
    expect(push!.vapid.aud).toBe(standIn.origin);
  });

  it("does not push administrative or non-emergency pages, nor to an agency turned off", async () => {
    const { token, subscription } = await subscribedMember(["CFA", "SES"]);
    await call("PUT", "/api/push/preferences", token, {
      agencies: [{ agency_id: agencyId.SES, mode: "none" }],
    });
    await ingest("0900001", "QD ADMIN NOTICE: RADIO TEST TONIGHT");
    await ingest("0900001", `Hb ${nextJob()} CHECK HYDRANTS`);
    await ingest("0900002", `@@ALERT ${nextJob()} TREE DOWN ON ROAD`);
    const control = await subscribedMember(["CFA"]);
    await ingest("0900001", `@@ALERT ${nextJob()} GRASS FIRE CONTROL`);
    await standIn.waitFor(() => pushesTo(control.subscription).length === 1);
    await app.push.worker.runOnce();
    expect(pushesTo(subscription).map((p) => (p.payload as PushNotification).body)).toEqual([
      expect.stringContaining("GRASS FIRE CONTROL"),
    ]);
  });

  it("pushes once per device when a rule and the agency both ask, and not again when paged to another agency", async () => {
    const { user, subscription } = await subscribedMember(["CFA", "SES"]);
    await app.db.insert(userAlertRules).values({
      userId: user.id,
      name: "Struc",
      keywords: ["STRUC1"],
      status: "approved",
      delivery: "push",
    });
    await app.ruleMatcher.runOnce(); // rules changed: rebuild before the page arrives
    app.ruleMatcher.rulesChanged();
    const job = nextJob();
    const text = `@@ALERT ${job} STRUC1 SHED FIRE ONCE ONLY`;
    const id = await ingest("0900001", text);
    await standIn.waitFor(() => pushesTo(subscription).length === 1);
    // The same page to SES: the alert gains a recipient and is matched again.
    expect(await ingest("0900002", text)).toBe(id);
    await app.ruleMatcher.runOnce();
    await app.push.worker.runOnce();
    expect(pushesTo(subscription)).toHaveLength(1);
    const rows = await app.db.select().from(pushDeliveries).where(eq(pushDeliveries.alertId, id));
    expect(
      rows.filter((r) => r.subscriptionId !== undefined && r.status === "sent").length,
    ).toBeGreaterThanOrEqual(1);
    // A push-only rule sends no SMS.
    expect(readOutbox(app).filter((m) => m.to === user.phone && m.body.includes("STRUC1"))).toEqual([]);
  });

  it("sends a rule's SMS as well as its push when asked for both, and a hanging push service delays no SMS", async () => {
    const { user, subscription } = await subscribedMember(["CFA"]);
    await call("PUT", "/api/push/preferences", await signIn(app, user.phone, `device-${user.id}`), {
      agencies: [{ agency_id: agencyId.CFA, mode: "none" }],
    });
    await app.db.insert(userAlertRules).values({
      userId: user.id,
      name: "Hazmat",
      keywords: ["HAZMAT"],
      status: "approved",
      delivery: "sms_and_push",
    });
    app.ruleMatcher.rulesChanged();
    standIn.setBehaviour("hang");
    try {
      const started = Date.now();
      await ingest("0900001", `@@ALERT ${nextJob()} HAZMAT SPILL HIGHWAY`);
      await expect
        .poll(() => readOutbox(app).filter((m) => m.to === user.phone && m.body.includes("HAZMAT")).length, {
          timeout: 5000,
        })
        .toBe(1);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(pushesTo(subscription)).toEqual([]);
    } finally {
      standIn.setBehaviour("ok");
    }
  });

  it("prunes a subscription the push service says is gone", async () => {
    const { subscription } = await subscribedMember(["CFA"]);
    standIn.setBehaviour("gone");
    try {
      await ingest("0900001", `@@ALERT ${nextJob()} GONE DEVICE TEST`);
      await expect
        .poll(
          async () =>
            (
              await app.db
                .select()
                .from(pushSubscriptions)
                .where(eq(pushSubscriptions.endpoint, subscription.endpoint))
            ).length,
          { timeout: 5000 },
        )
        .toBe(0);
    } finally {
      standIn.setBehaviour("ok");
    }
  });

  it("removes a device's subscription when its session ends", async () => {
    const { token, subscription } = await subscribedMember(["CFA"]);
    expect((await call("POST", "/api/auth/logout", token)).statusCode).toBe(200);
    const left = await app.db
      .select()
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.endpoint, subscription.endpoint));
    expect(left).toEqual([]);
  });

  it("sends a test notification to this device", async () => {
    const { token, subscription } = await subscribedMember(["CFA"]);
    expect((await call("POST", "/api/push/test", token)).statusCode).toBe(202);
    await standIn.waitFor(() => pushesTo(subscription).length === 1);
    expect(pushesTo(subscription)[0]!.payload).toMatchObject({
      title: "Turnout test notification",
      url: "/",
    });
    // A few a minute; then a clear 429 with the time to wait.
    for (let i = 0; i < 4; i++) expect((await call("POST", "/api/push/test", token)).statusCode).toBe(202);
    const refused = await call("POST", "/api/push/test", token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ errorType: "rate_limited" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe.skipIf(!process.env.REDIS_URL)("two instances", () => {
  it("pushes each alert once per device whichever instance takes it", async () => {
    await withTwoInstances({ INGEST_API_KEY: KEY, PUSH_EXTRA_ENDPOINT_HOSTS: "127.0.0.1" }, async (a, b) => {
      const [cfa] = await a.db.select().from(agencies).where(eq(agencies.code, "CFA"));
      await a.db.insert(capcodes).values({ capcode: "0990001", agencyId: cfa!.id });
      const devices = [await subscribedMember(["CFA"], a), await subscribedMember(["CFA"], b)];
      const ids: number[] = [];
      for (let i = 0; i < 10; i++)
        ids.push(await ingest("0990001", `@@ALERT ${nextJob()} TWO INSTANCES ${i}`, i % 2 ? a : b));
      for (const d of devices) await standIn.waitFor(() => pushesTo(d.subscription).length >= 10, 10_000);
      await Promise.all([a.push.worker.runOnce(), b.push.worker.runOnce()]);
      for (const d of devices) {
        const got = pushesTo(d.subscription).map((p) => (p.payload as PushNotification).alert_id);
        expect([...got].sort()).toEqual([...ids].sort());
      }
    });
  });
});
