import { CLIENT_ERROR_REPORTS_PER_MINUTE } from "@turnout/domain";
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { systemLogs } from "../../db/schema.js";
import { CLIENT_ERROR_ENTRIES_PER_HOUR } from "./routes.js";

let app: TestApp;
let adminToken: string;
let adminId: number;

const report = {
  kind: "render",
  message: "TypeError: cannot read 'name' of undefined for +61412345678",
  stack: "TypeError: cannot read 'name'\n    at AlertCard (index-BVruBOZs.js:1:2345)",
  path: "/admin",
  release: "index-BVruBOZs.js",
};
/** Each test its own address: the per-address limit is what one of them tests. */
const send = (payload: unknown, remoteAddress: string, token?: string) =>
  app.inject({
    method: "POST",
    url: "/api/client-errors",
    payload: payload as object,
    remoteAddress,
    headers: {
      "user-agent": "Mozilla/5.0 (Linux; Android 14) Chrome/131",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
/** The health card's warning of app errors, or undefined. */
async function appErrorsWarning(): Promise<string | undefined> {
  const dashboard = await app.inject({
    method: "GET",
    url: "/api/admin/system/dashboard",
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect(dashboard.statusCode).toBe(200);
  return (dashboard.json().data.health.warnings as string[]).find((w) => / in people's apps /.test(w));
}
const webLogs = () =>
  app.db.select().from(systemLogs).where(eq(systemLogs.category, "web")).orderBy(desc(systemLogs.id));
/** Sends each payload from addresses of its own, a few per address (under the per-minute limit). */
async function sendMany(payloads: unknown[], network: string): Promise<number[]> {
  const statuses: number[] = [];
  for (const [i, payload] of payloads.entries())
    statuses.push((await send(payload, `${network}.${Math.floor(i / 10) + 1}`)).statusCode);
  return statuses;
}

beforeAll(async () => {
  app = await buildTestApp();
  const admin = await createUser(app, { isAdmin: true });
  adminId = admin.id;
  adminToken = await signIn(app, admin.phone);
});
afterAll(() => app.cleanup());

describe("POST /api/client-errors", () => {
  it("writes a signed-in person's app error to the system log, masked, and warns of it on the health card", async () => {
    const res = await send(report, "203.0.113.1", adminToken);
    expect(res.statusCode, res.body).toBe(204);
    const [entry] = await webLogs();
    expect(entry).toMatchObject({ level: "error", category: "web", ipAddress: "203.0.113.1" });
    expect(entry?.message).toMatch(
      /^App error \(render\) on \/admin: TypeError: cannot read 'name' of undefined/,
    );
    expect(entry?.message).not.toContain("412345678");
    expect(entry?.details).toMatchObject({
      kind: "render",
      path: "/admin",
      release: "index-BVruBOZs.js",
      stack: report.stack,
      user_agent: "Mozilla/5.0 (Linux; Android 14) Chrome/131",
      user_id: adminId,
    });

    // The admin's System Monitor warns of it, and shows it among the logs.
    expect(await appErrorsWarning()).toMatch(/^1 error in people's apps in the last hour/);
    const logs = await app.inject({
      method: "GET",
      url: "/api/admin/system/dashboard",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(logs.json().data.logs.data.map((l: { category: string }) => l.category)).toContain("web");
  });

  it("logs an error sent without a valid session, but a stranger's reports put nothing on the health card", async () => {
    const before = await appErrorsWarning();
    for (const [i, token] of [undefined, "not-a-token", `${adminToken}x`].entries()) {
      const res = await send({ ...report, message: `stranger's error ${i}` }, "203.0.113.5", token);
      expect(res.statusCode, res.body).toBe(204);
      const [entry] = await webLogs();
      expect(entry?.message).toContain(`stranger's error ${i}`);
      expect(entry?.details).toMatchObject({ user_id: null });
    }
    expect(await appErrorsWarning()).toBe(before);
  });

  it("refuses what is not a report with 400 and the field, writing nothing", async () => {
    const before = (await webLogs()).length;
    for (const [bad, field] of [
      [{ ...report, kind: "crash" }, "body.kind"],
      [{ ...report, message: "" }, "body.message"],
      [{ ...report, stack: "s".repeat(4_001) }, "body.stack"],
      [{ kind: "error" }, "body.message"],
      [["a list"], "body"],
    ] as const) {
      const res = await send(bad, "203.0.113.2");
      expect(res.statusCode, JSON.stringify(bad).slice(0, 60)).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
      expect(res.json().fields[0].field).toBe(field);
    }
    // Larger than any report can be: refused before it is read.
    const huge = await send({ ...report, stack: "s".repeat(64 * 1024) }, "203.0.113.2");
    expect(huge.statusCode).toBe(413);
    expect((await webLogs()).length).toBe(before);
  });

  it("writes one entry for the same error however many report it in the hour", async () => {
    const before = (await webLogs()).length;
    const same = { ...report, message: "ReferenceError: shared is not defined" };
    expect(await sendMany(Array(25).fill(same), "198.51.100")).toEqual(Array(25).fill(204));
    const after = await webLogs();
    expect(after.slice(0, after.length - before).map((e) => e.message)).toEqual([
      "App error (render) on /admin: ReferenceError: shared is not defined",
    ]);
    // Another release's same error is another entry.
    expect((await send({ ...same, release: "index-Other123.js" }, "198.51.100.9")).statusCode).toBe(204);
    expect((await webLogs()).length).toBe(before + 2);
  });

  it("adds at most its hourly number of entries, from any number of addresses, and says so once", async () => {
    const anonymousErrors = (entries: Awaited<ReturnType<typeof webLogs>>) =>
      entries.filter((e) => e.level === "error" && (e.details as { user_id: unknown }).user_id === null);
    const left = CLIENT_ERROR_ENTRIES_PER_HOUR - anonymousErrors(await webLogs()).length;
    const distinct = Array.from({ length: left + 15 }, (_, i) => ({ ...report, message: `flood ${i}` }));
    expect(new Set(await sendMany(distinct, "192.0.2"))).toEqual(new Set([204]));
    const entries = await webLogs();
    expect(anonymousErrors(entries)).toHaveLength(CLIENT_ERROR_ENTRIES_PER_HOUR);
    expect(entries.filter((e) => e.level === "warn").map((e) => e.message)).toEqual([
      `More than ${CLIENT_ERROR_ENTRIES_PER_HOUR} different app errors reported this hour by people not signed in; the rest of the hour's are not logged`,
    ]);

    // Strangers used up their entries, not the signed-in people's; nor does a stranger sending an
    // error first keep a member's same error out of the log.
    const member = { ...report, message: "flood 0" };
    expect((await send(member, "192.0.2.200", adminToken)).statusCode).toBe(204);
    const [entry] = await webLogs();
    expect(entry).toMatchObject({ level: "error", details: expect.objectContaining({ user_id: adminId }) });
    expect(entry?.message).toContain("flood 0");
  });

  it("takes a few reports a minute from one address, then answers 429 with when to try again", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= CLIENT_ERROR_REPORTS_PER_MINUTE; i++)
      statuses.push((await send({ ...report, message: `error ${i}` }, "203.0.113.3")).statusCode);
    expect(statuses.slice(0, CLIENT_ERROR_REPORTS_PER_MINUTE)).toEqual(
      Array(CLIENT_ERROR_REPORTS_PER_MINUTE).fill(204),
    );
    const refused = await send(report, "203.0.113.3");
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // Another address is not held up by it.
    expect((await send(report, "203.0.113.4")).statusCode).toBe(204);
  });
});
