import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { buildTestApp, type TestApp } from "../../test/build-app.js";
import { createUser } from "../../test/factories.js";
import { killableDatabase } from "../../test/killable-database.js";
import { agencies, capcodes, smsQueue, userAlertRules } from "../db/schema.js";
import { rulesChanged } from "../modules/rules/matcher.js";
import { type MessageMediaStandIn, startMessageMediaStandIn } from "../testing/messagemedia-stand-in.js";
import { createMessageMediaProvider } from "./messagemedia-provider.js";
import { SmsWorker } from "./worker.js";

/**
 * End to end with SMS_PROVIDER=http: the real app, its queue and worker, and the MessageMedia
 * stand-in failing on purpose. Whatever the gateway does, a queued SMS is never lost.
 */
const KEY = "test-ingest-key-http-sms-0123456789";
const CREDENTIALS = { apiKey: "live-key", apiSecret: "live-secret" };
let standIn: MessageMediaStandIn;
let app: TestApp;
let adminToken: string;
let seq = 0;

async function row(id: number) {
  const [r] = await app.db.select().from(smsQueue).where(eq(smsQueue.id, id));
  return r!;
}

/** Makes a waiting message due now (instead of sleeping through the backoff). */
async function makeDue(id: number) {
  await app.db
    .update(smsQueue)
    .set({ nextAttemptAt: sql`now() - interval '1 second'` })
    .where(eq(smsQueue.id, id));
}

async function secondsUntilDue(id: number): Promise<number> {
  const [r] = await app.db
    .select({ wait: sql<number>`extract(epoch from ${smsQueue.nextAttemptAt} - now())`.mapWith(Number) })
    .from(smsQueue)
    .where(eq(smsQueue.id, id));
  return r!.wait;
}

/** Ingests a turnout that the given user's rule matches; resolves to the id of the rule SMS it queued. */
async function ruleSmsFor(phone: string): Promise<number> {
  seq += 1;
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: {
      capcode: "0300001",
      message: `@@ALERT F25${2_000_000 + seq} STRUC1 HAYSHED FIRE ${seq} OLD RD KYNETON`,
    },
  });
  expect(res.statusCode).toBe(200);
  await app.ruleMatcher.runOnce();
  const [sms] = await app.db
    .select()
    .from(smsQueue)
    .where(
      sql`${smsQueue.toPhone} = ${phone} AND ${smsQueue.kind} = 'rule' AND ${smsQueue.body} LIKE ${`%FIRE ${seq} %`}`,
    );
  expect(sms).toBeDefined();
  return sms!.id;
}

beforeAll(async () => {
  standIn = await startMessageMediaStandIn(CREDENTIALS);
  app = await buildTestApp({
    INGEST_API_KEY: KEY,
    SMS_PROVIDER: "http",
    SMS_HTTP_URL: standIn.url,
    SMS_HTTP_API_KEY: CREDENTIALS.apiKey,
    SMS_HTTP_API_SECRET: CREDENTIALS.apiSecret,
    SMS_HTTP_TIMEOUT_MS: "1000",
    SMS_SENDER: "Turnout",
    PUBLIC_URL: "https://turnout.example",
  });
  const [cfa] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
  await app.db.insert(capcodes).values({ capcode: "0300001", agencyId: cfa!.id });
  await app.ready();
  // Sign-in codes travel through the stand-in too: read the admin's from there.
  const admin = await createUser(app, { agencyCodes: ["CFA"], isAdmin: true });
  adminToken = await signInThroughStandIn(admin.phone);
});
afterAll(async () => {
  await app.cleanup();
  await standIn.close();
});
beforeEach(async () => {
  await app.db.delete(userAlertRules);
  rulesChanged(app.services);
});

async function signInThroughStandIn(phone: string): Promise<string> {
  const before = standIn.accepted.length;
  const req = await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone } });
  expect(req.statusCode).toBe(200);
  await vi.waitFor(() => expect(standIn.accepted.length).toBeGreaterThan(before), { timeout: 5000 });
  const code = /\b(\d{6})\b/.exec(standIn.accepted.at(-1)!.content)![1]!;
  const res = await app.inject({
    method: "POST",
    url: "/api/auth/verify-otp",
    headers: { "x-device-id": "device-http" },
    payload: { phone, otp_code: code },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data.token as string;
}

async function userWithRule() {
  const user = await createUser(app, { agencyCodes: ["CFA"] });
  await app.db
    .insert(userAlertRules)
    .values({ userId: user.id, name: "Hay sheds", keywords: ["hayshed"], status: "approved" });
  rulesChanged(app.services);
  return user;
}

describe("rule SMS through the MessageMedia provider", () => {
  it("arrives at the gateway from the configured sender, nudged without waiting for a poll", async () => {
    const user = await userWithRule();
    const before = standIn.accepted.length;
    const id = await ruleSmsFor(user.phone);

    await vi.waitFor(async () => expect((await row(id)).status).toBe("sent"), {
      timeout: 3000,
      interval: 20,
    });
    const accepted = standIn.accepted.slice(before);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({ destination_number: user.phone, source_number: "Turnout" });
    expect(accepted[0]!.content).toMatch(
      /^EMERGENCY CFA: ALERT F25\d+ STRUC1 HAYSHED FIRE .* https:\/\/turnout\.example\/j\/\d+$/,
    );
    expect((await row(id)).providerMessageId).toBe(accepted[0]!.message_id);
  });

  it("survives a 500, a 429 and a time-out in a row, then is delivered once", async () => {
    const user = await userWithRule();
    await app.smsWorker.stop(); // this test drives the worker by hand
    try {
      standIn.script({ status: 500 }, { status: 429, retryAfter: "30" }, "hang");
      const before = standIn.accepted.length;
      const id = await ruleSmsFor(user.phone);

      await app.smsWorker.runOnce();
      expect(await row(id)).toMatchObject({ status: "pending", attempts: 1 });
      expect((await row(id)).lastError).toContain("MessageMedia answered 500");

      await makeDue(id);
      await app.smsWorker.runOnce();
      expect(await row(id)).toMatchObject({ status: "pending", attempts: 2 });
      expect((await row(id)).lastError).toContain("429");
      expect(await secondsUntilDue(id)).toBeGreaterThan(25);
      expect(await secondsUntilDue(id)).toBeLessThanOrEqual(30);

      await makeDue(id);
      await app.smsWorker.runOnce();
      expect(await row(id)).toMatchObject({ status: "pending", attempts: 3 });
      expect((await row(id)).lastError).toContain("no answer within 1000 ms");

      await makeDue(id);
      expect(await app.smsWorker.runOnce()).toBe(1);
      expect(await row(id)).toMatchObject({ status: "sent", attempts: 4, lastError: null });
      expect(standIn.accepted.slice(before).map((m) => m.destination_number)).toEqual([user.phone]);
    } finally {
      app.smsWorker.start();
    }
  });

  it("keeps a message the gateway keeps refusing: failed after its attempts, then sent on an admin's retry", async () => {
    const user = await userWithRule();
    await app.smsWorker.stop();
    try {
      const id = await ruleSmsFor(user.phone);
      const { maxAttempts } = await row(id);
      standIn.script(...Array.from({ length: maxAttempts }, () => ({ status: 502 })));
      for (let i = 0; i < maxAttempts; i++) {
        await makeDue(id);
        await app.smsWorker.runOnce();
      }
      expect(await row(id)).toMatchObject({ status: "failed", attempts: maxAttempts });

      const retry = await app.inject({
        method: "POST",
        url: "/api/admin/sms/retry-all",
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(retry.json().data.retried).toBeGreaterThanOrEqual(1);
      expect(await app.smsWorker.runOnce()).toBeGreaterThanOrEqual(1);
      expect(await row(id)).toMatchObject({ status: "sent" });
    } finally {
      app.smsWorker.start();
    }
  });

  it("takes over a message left 'sending' by a worker that died mid-request: looked up, then sent", async () => {
    const user = await userWithRule();
    await app.smsWorker.stop();
    try {
      const id = await ruleSmsFor(user.phone);
      // What a crash during the HTTP request leaves behind: claimed, never recorded, lease run out.
      await app.db
        .update(smsQueue)
        .set({
          status: "sending",
          attempts: 1,
          lockedAt: sql`now() - interval '1 minute'`,
          leaseUntil: sql`now() - interval '1 second'`,
        })
        .where(eq(smsQueue.id, id));
      const before = { accepted: standIn.accepted.length, lookups: standIn.reportLookups() };

      expect(await app.smsWorker.runOnce()).toBe(1);

      expect(await row(id)).toMatchObject({ status: "sent", attempts: 2 });
      expect(standIn.reportLookups()).toBe(before.lookups + 1);
      const accepted = standIn.accepted.slice(before.accepted);
      expect(accepted).toHaveLength(1);
      expect(accepted[0]!.metadata).toEqual({
        turnout_sms: expect.stringMatching(`^turnout-sms-${id}-\\d+$`),
      });
    } finally {
      app.smsWorker.start();
    }
  });

  it("does not send again a message the gateway accepted before its worker died; finds it in the report", async () => {
    const user = await userWithRule();
    await app.smsWorker.stop();
    try {
      const id = await ruleSmsFor(user.phone);
      // The first worker's request reached the gateway, and the worker died before recording it.
      const dying = createMessageMediaProvider({
        baseUrl: standIn.url,
        ...CREDENTIALS,
        sender: "Turnout",
        timeoutMs: 1000,
        logger: pino({ level: "silent" }),
      });
      const doomed = killableDatabase(app.db);
      const killed = new SmsWorker({
        db: doomed.db,
        provider: { name: "dying", send: (m) => dying.send(m).then(() => new Promise(() => {})) },
        logger: pino({ level: "silent" }),
        leaseMs: 300,
      });
      const before = standIn.accepted.length;
      void killed.runOnce();
      await vi.waitFor(() => expect(standIn.accepted.length).toBe(before + 1));
      const first = standIn.accepted.at(-1)!;
      doomed.kill();
      await new Promise((r) => setTimeout(r, 400)); // the lease runs out: nobody renews it

      expect(await app.smsWorker.runOnce()).toBe(1);

      expect(standIn.accepted.length).toBe(before + 1);
      expect(await row(id)).toMatchObject({
        status: "sent",
        attempts: 2,
        providerMessageId: first.message_id,
      });
    } finally {
      app.smsWorker.start();
    }
  });

  it("sends again when the report cannot be read (an account without reporting): late rather than lost", async () => {
    const user = await userWithRule();
    await app.smsWorker.stop();
    standIn.failReports(403);
    try {
      const id = await ruleSmsFor(user.phone);
      await app.db
        .update(smsQueue)
        .set({
          status: "sending",
          attempts: 1,
          lockedAt: sql`now() - interval '1 minute'`,
          leaseUntil: sql`now() - interval '1 second'`,
        })
        .where(eq(smsQueue.id, id));
      const before = standIn.accepted.length;
      expect(await app.smsWorker.runOnce()).toBe(1);
      expect(standIn.accepted.length).toBe(before + 1);
      expect(await row(id)).toMatchObject({ status: "sent", attempts: 2 });
    } finally {
      standIn.failReports(null);
      app.smsWorker.start();
    }
  });

  it("fails a message at once when the gateway refuses it for good (content over 5000 characters)", async () => {
    await app.smsWorker.stop();
    try {
      // A number Turnout may text (issue 27: anything else fails before the gateway), a body it refuses.
      const [queued] = await app.db
        .insert(smsQueue)
        .values({ toPhone: "+61412000123", body: "x".repeat(5001), kind: "notice" })
        .returning();
      await app.smsWorker.runOnce();
      expect(await row(queued!.id)).toMatchObject({ status: "failed", attempts: 1 });
      expect((await row(queued!.id)).lastError).toContain("400");
    } finally {
      app.smsWorker.start();
    }
  });

  it("shows the gateway as connected on the admin SMS card", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/admin/system/sms",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      status: "connected",
      is_enabled: true,
      provider: "messagemedia",
      sender_address: "Turnout",
    });
    expect(res.json().data.api_response_time).toBeGreaterThanOrEqual(0);
    expect(Date.parse(res.json().data.last_api_check)).not.toBeNaN();
    expect(res.json().data.total_sent).toBeGreaterThan(0);
  });
});
