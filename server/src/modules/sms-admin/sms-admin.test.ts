import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn } from "../../../test/factories.js";
import { smsQueue } from "../../db/schema.js";
import { CODE_REMOVED_BODY, enqueueSms } from "../../sms/queue.js";
import type { SmsQueueItem } from "../../sms/queue-admin.js";
import { presentQueueItem } from "./present.js";

const PHONE = "+61412345678";
let app: TestApp;
let adminToken: string;
let memberToken: string;

const call = (token: string | null, method: "GET" | "POST", url: string, payload?: object) =>
  app.inject({
    method,
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload ? { payload } : {}),
  });

async function row(id: number) {
  const [r] = await app.db.select().from(smsQueue).where(eq(smsQueue.id, id));
  return r!;
}

beforeAll(async () => {
  app = await buildTestApp();
  const admin = await createUser(app, { isAdmin: true });
  const member = await createUser(app);
  adminToken = await signIn(app, admin.phone);
  memberToken = await signIn(app, member.phone);
  // The tests below arrange the queue by hand; the app's own worker must not send behind their back.
  await app.smsWorker.stop();
});
afterAll(() => app.cleanup());
beforeEach(async () => {
  await app.db.delete(smsQueue);
});

async function seed() {
  const sent = await enqueueSms(app.db, { to: PHONE, body: "EMERGENCY CFA: shed fire", kind: "rule" });
  const code = await enqueueSms(app.db, {
    to: "+61498765432",
    body: "Your Turnout code is 123456",
    kind: "otp",
  });
  const failed = await enqueueSms(app.db, { to: PHONE, body: "Your rule was approved", kind: "rule_review" });
  const stuck = await enqueueSms(app.db, { to: PHONE, body: "stuck", kind: "notice" });
  await app.db.update(smsQueue).set({ status: "sent", attempts: 1 }).where(eq(smsQueue.id, sent.id));
  await app.db
    .update(smsQueue)
    .set({ status: "failed", attempts: 5, lastError: "SmsSendError: MessageMedia answered 503" })
    .where(eq(smsQueue.id, failed.id));
  await app.db
    .update(smsQueue)
    .set({ status: "sending", attempts: 1, lockedAt: sql`now() - interval '10 minutes'` })
    .where(eq(smsQueue.id, stuck.id));
  return { sent, code, failed, stuck };
}

describe("GET /api/admin/sms/queue", () => {
  it("lists the queue newest first in the wire's field names, phones masked, codes withheld", async () => {
    const ids = await seed();
    const res = await call(adminToken, "GET", "/admin/sms/queue");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toEqual({ total: 4, limit: 100, offset: 0, has_more: false });
    expect(body.data.map((i: { id: number }) => i.id)).toEqual([
      ids.stuck.id,
      ids.failed.id,
      ids.code.id,
      ids.sent.id,
    ]);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "attempts",
        "body",
        "created_at",
        "id",
        "kind",
        "last_error",
        "locked_at",
        "max_attempts",
        "next_attempt_at",
        "provider_message_id",
        "sent_at",
        "status",
        "to",
        "updated_at",
        "user_id",
      ].sort(),
    );
    const code = body.data.find((i: { id: number }) => i.id === ids.code.id);
    expect(code).toMatchObject({ to: "+614•••••432", kind: "otp", body: null });
    expect(res.body).not.toContain("123456");
    expect(res.body).not.toContain("12345678");
    expect(body.data.find((i: { id: number }) => i.id === ids.failed.id)).toMatchObject({
      status: "failed",
      max_attempts: 5,
      last_error: "SmsSendError: MessageMedia answered 503",
      body: "Your rule was approved",
    });
  });

  it("filters by status and pages", async () => {
    await seed();
    const failed = await call(adminToken, "GET", "/admin/sms/queue?status=failed");
    expect(failed.json().data.map((i: { status: string }) => i.status)).toEqual(["failed"]);
    const page = await call(adminToken, "GET", "/admin/sms/queue?limit=1&offset=1");
    expect(page.json().data).toHaveLength(1);
    expect(page.json().pagination).toMatchObject({ total: 4, limit: 1, offset: 1, has_more: true });
    const bad = await call(adminToken, "GET", "/admin/sms/queue?status=lost");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain("status must be one of pending, sending, sent, failed");
  });
});

describe("retrying and releasing", () => {
  it("retries one failed SMS with fresh attempts; 404 for an unknown one, 409 for one not failed", async () => {
    const ids = await seed();
    const res = await call(adminToken, "POST", `/admin/sms/retry/${ids.failed.id}`);
    expect(res.statusCode).toBe(200);
    expect(await row(ids.failed.id)).toMatchObject({ status: "pending", attempts: 0 });

    expect((await call(adminToken, "POST", "/admin/sms/retry/987654")).statusCode).toBe(404);
    const notFailed = await call(adminToken, "POST", `/admin/sms/retry/${ids.sent.id}`);
    expect(notFailed.statusCode).toBe(409);
    expect(notFailed.json().message).toBe("Only failed SMS can be retried; this one is sent.");
  });

  it("retries every failed SMS", async () => {
    const ids = await seed();
    const res = await call(adminToken, "POST", "/admin/sms/retry-all");
    expect(res.json()).toMatchObject({ success: true, data: { retried: 1 } });
    expect((await row(ids.failed.id)).status).toBe("pending");
  });

  it("releases SMS stuck in sending for longer than 5 minutes, or a chosen age", async () => {
    const ids = await seed();
    await app.db
      .update(smsQueue)
      .set({ status: "sending", attempts: 1, lockedAt: sql`now() - interval '2 minutes'` })
      .where(eq(smsQueue.id, ids.code.id));

    const res = await call(adminToken, "POST", "/admin/sms/handle-stuck");
    expect(res.json().data.released).toBe(1);
    expect(await row(ids.stuck.id)).toMatchObject({ status: "pending", lockedAt: null });
    expect((await row(ids.code.id)).status).toBe("sending");

    const sooner = await call(adminToken, "POST", "/admin/sms/handle-stuck", { older_than_minutes: 1 });
    expect(sooner.json().data.released).toBe(1);
    expect((await row(ids.code.id)).status).toBe("pending");
  });
});

describe("sign-in and activation codes", () => {
  it("a delivered sign-in code is gone from the queue table and never shown to admins", async () => {
    const user = await createUser(app);
    const res = await call(null, "POST", "/auth/request-otp", { phone: user.phone });
    expect(res.statusCode).toBe(200);
    const [pending] = await app.db.select().from(smsQueue).where(eq(smsQueue.toPhone, user.phone));
    const code = pending!.body.match(/\b(\d{6})\b/)![1]!;
    const pendingList = await call(adminToken, "GET", "/admin/sms/queue");
    expect(pendingList.json().data[0]).toMatchObject({ id: pending!.id, status: "pending", body: null });
    expect(pendingList.body).not.toContain(code);

    await app.smsWorker.runOnce();

    expect(readOutbox(app).at(-1)?.body).toContain(code);
    const stored = await row(pending!.id);
    expect(stored).toMatchObject({ status: "sent", kind: "otp", body: CODE_REMOVED_BODY });
    const sentList = await call(adminToken, "GET", "/admin/sms/queue?status=sent");
    expect(sentList.json().data[0]).toMatchObject({ id: pending!.id, body: null });
    expect(sentList.body).not.toContain(code);
  });

  it("shows no code SMS body in any state, even one still holding its code", async () => {
    const digits = ["314159", "271828", "161803", "141421"];
    const states = ["pending", "sending", "sent", "failed"] as const;
    for (const [i, status] of states.entries()) {
      const { id } = await enqueueSms(app.db, {
        to: PHONE,
        body: `Turnout: your ${i % 2 ? "activation" : "sign-in"} code is ${digits[i]}.`,
        kind: i % 2 ? "activation" : "otp",
      });
      // Rows written before codes were removed on sending still hold them: the admin view must not care.
      await app.db.update(smsQueue).set({ status }).where(eq(smsQueue.id, id));
    }

    const res = await call(adminToken, "GET", "/admin/sms/queue");
    expect(res.json().data.map((i: { status: string; body: string | null }) => [i.status, i.body])).toEqual(
      [...states].reverse().map((status) => [status, null]),
    );
    for (const code of digits) expect(res.body).not.toContain(code);
  });

  it("the presenter withholds a code SMS body even when it is handed one", () => {
    const item = {
      id: 1,
      to: "+614•••••678",
      kind: "activation",
      status: "pending",
      body: "Turnout: your activation code is 192837.",
      attempts: 0,
      maxAttempts: 5,
      nextAttemptAt: new Date(),
      lockedAt: null,
      lastError: null,
      providerMessageId: null,
      userId: null,
      createdAt: new Date(),
      updatedAt: new Date(),
      sentAt: null,
    } satisfies SmsQueueItem;
    expect(presentQueueItem(item).body).toBeNull();
    expect(presentQueueItem({ ...item, kind: "rule", body: "EMERGENCY CFA" }).body).toBe("EMERGENCY CFA");
  });

  it("refuses to send a failed code SMS again, alone or with every failed SMS", async () => {
    const { failed, code } = await seed();
    await app.db
      .update(smsQueue)
      .set({ status: "failed", attempts: 5, body: CODE_REMOVED_BODY })
      .where(eq(smsQueue.id, code.id));

    const one = await call(adminToken, "POST", `/admin/sms/retry/${code.id}`);
    expect(one.statusCode).toBe(409);
    expect(one.json().message).toBe(
      "Sign-in and activation codes are never sent again; the user can request a new code.",
    );
    const all = await call(adminToken, "POST", "/admin/sms/retry-all");
    expect(all.json().data.retried).toBe(1);
    expect((await row(failed.id)).status).toBe("pending");
    expect(await row(code.id)).toMatchObject({ status: "failed", attempts: 5, body: CODE_REMOVED_BODY });
  });
});

describe("GET /api/admin/system/sms", () => {
  it("reports the outbox as not configured (SMS disabled), with the queue's totals", async () => {
    await seed();
    const res = await call(adminToken, "GET", "/admin/system/sms");
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      status: "not_configured",
      is_enabled: false,
      provider: "outbox",
      sender_address: null,
      last_api_check: null,
      api_response_time: null,
      detail: null,
      success_rate: 50,
      total_sent: 1,
      pending: 2,
      failed: 1,
    });
  });
});

describe("access", () => {
  it.each([
    ["GET", "/admin/sms/queue"],
    ["POST", "/admin/sms/retry/1"],
    ["POST", "/admin/sms/retry-all"],
    ["POST", "/admin/sms/handle-stuck"],
    ["GET", "/admin/system/sms"],
  ] as const)("%s %s: 403 for a non-admin, 401 without a session", async (method, url) => {
    expect((await call(memberToken, method, url)).statusCode).toBe(403);
    expect((await call(null, method, url)).statusCode).toBe(401);
  });
});
