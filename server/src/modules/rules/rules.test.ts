import { KEYWORD_REQUIRED_MESSAGE, KEYWORD_SPACES_COMMAS_MESSAGE } from "@turnout/domain";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, readOutbox, signIn } from "../../../test/factories.js";
import {
  agencies,
  alertRecipients,
  alerts,
  capcodes,
  ruleTriggers,
  userAgencies,
  userAlertRules,
} from "../../db/schema.js";
import { PREVIEW_COUNT_CAP } from "./preview.js";
import { MAX_RULES_PER_USER, TOGGLE_NEEDS_APPROVAL } from "./service.js";

const KEY = "test-ingest-key-rules-api-0123456789";
let app: TestApp;
const agency: Record<string, number> = {};
let member: { id: number; phone: string; token: string };
let other: { id: number; phone: string; token: string };
let admin: { id: number; phone: string; token: string };

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const call = (token: string | null, method: Method, url: string, payload?: unknown) =>
  app.inject({
    method,
    url: `/api${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function person(agencyCodes: string[], isAdmin = false) {
  const user = await createUser(app, { agencyCodes, isAdmin });
  return { id: user.id, phone: user.phone, token: await signIn(app, user.phone) };
}

const newRule = (over: Record<string, unknown> = {}) => ({
  name: "Shed fires",
  description: "Sheds near home",
  keywords: ["shed", "fire"],
  ...over,
});

async function createRule(token: string, over: Record<string, unknown> = {}) {
  const res = await call(token, "POST", "/user-alerts", newRule(over));
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: number; status: string; is_active: boolean };
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const row of await app.db.select().from(agencies)) agency[row.code] = row.id;
  member = await person(["CFA", "SES"]);
  other = await person(["CFA"]);
  admin = await person(["FRV"], true);
});
afterAll(() => app.cleanup());

describe("user alert rules", () => {
  it("creates a pending, active rule with keywords cleaned, and lists it with a zero trigger count", async () => {
    const res = await call(member.token, "POST", "/user-alerts", {
      name: "  Shed fires ",
      keywords: [" SHED ", "", "Fire"],
      agencies: [agency.CFA],
      priority_levels: ["emergency", "admin"],
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      name: "Shed fires",
      description: null,
      keywords: ["shed", "fire"],
      agencies: [agency.CFA],
      priority_levels: ["emergency", "admin"],
      status: "pending",
      is_active: true,
      rejection_reason: null,
      triggers_last_30_days: 0,
    });

    const list = await call(member.token, "GET", "/user-alerts");
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((r: { id: number }) => r.id)).toContain(created.id);
  });

  it("shows a user only their own rules, and answers 404 for anyone else's", async () => {
    const mine = await createRule(member.token);
    const theirs = await call(other.token, "GET", "/user-alerts");
    expect(theirs.json().data.map((r: { id: number }) => r.id)).not.toContain(mine.id);

    for (const [method, url, body] of [
      ["PUT", `/user-alerts/${mine.id}`, newRule()],
      ["DELETE", `/user-alerts/${mine.id}`, undefined],
      ["PATCH", `/user-alerts/${mine.id}/toggle`, undefined],
    ] as const) {
      const res = await call(other.token, method, url, body);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, message: "Alert rule not found." });
    }
    const [still] = await app.db.select().from(userAlertRules).where(eq(userAlertRules.id, mine.id));
    expect(still?.name).toBe("Shed fires");
  });

  it("needs a signed-in user", async () => {
    expect((await call(null, "GET", "/user-alerts")).statusCode).toBe(401);
    expect((await call(null, "POST", "/user-alerts/preview", { keywords: ["x"] })).statusCode).toBe(401);
  });

  describe("validation (SPEC 5), with the form's messages", () => {
    it.each([
      ["a keyword with a space", { keywords: ["shed fire"] }, KEYWORD_SPACES_COMMAS_MESSAGE],
      ["a keyword with a comma", { keywords: ["shed,fire"] }, KEYWORD_SPACES_COMMAS_MESSAGE],
      ["no keyword", { keywords: [] }, KEYWORD_REQUIRED_MESSAGE],
      ["only blank keywords", { keywords: ["", "  "] }, KEYWORD_REQUIRED_MESSAGE],
      ["a missing name", { name: "   " }, "Name is required"],
    ])("rejects %s with 400", async (_, over, message) => {
      const res = await call(member.token, "POST", "/user-alerts", newRule(over));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error", message });
      expect(res.json().fields[0].message).toBe(message);
    });

    it("applies the same rules to updates and previews", async () => {
      const rule = await createRule(member.token);
      const put = await call(member.token, "PUT", `/user-alerts/${rule.id}`, newRule({ keywords: ["a b"] }));
      expect(put.statusCode).toBe(400);
      expect(put.json().message).toBe(KEYWORD_SPACES_COMMAS_MESSAGE);
      const preview = await call(member.token, "POST", "/user-alerts/preview", { keywords: ["x,y"] });
      expect(preview.statusCode).toBe(400);
      expect(preview.json().message).toBe(KEYWORD_SPACES_COMMAS_MESSAGE);
    });

    it("rejects an unknown message type", async () => {
      const res = await call(member.token, "POST", "/user-alerts", newRule({ priority_levels: ["urgent"] }));
      expect(res.statusCode).toBe(400);
      expect(res.json().fields[0].field).toBe("body.priority_levels.0");
    });

    it("accepts only the user's own agencies", async () => {
      const res = await call(member.token, "POST", "/user-alerts", newRule({ agencies: [agency.FRV] }));
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(`Agency ${agency.FRV} is not one of your agencies.`);
      const preview = await call(member.token, "POST", "/user-alerts/preview", {
        keywords: ["x"],
        agencies: [agency.FRV],
      });
      expect(preview.statusCode).toBe(400);
    });

    it("limits how many rules one user keeps", async () => {
      const busy = await person(["CFA"]);
      await app.db.insert(userAlertRules).values(
        Array.from({ length: MAX_RULES_PER_USER }, (_, i) => ({
          userId: busy.id,
          name: `r${i}`,
          keywords: ["x"],
        })),
      );
      const res = await call(busy.token, "POST", "/user-alerts", newRule());
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toContain(`at most ${MAX_RULES_PER_USER}`);
    });
  });

  it("lists the user's agencies for the rule form", async () => {
    const res = await call(member.token, "GET", "/user-alerts/meta/agencies");
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      { id: agency.CFA, name: "Country Fire Authority", code: "CFA" },
      { id: agency.SES, name: "State Emergency Service", code: "SES" },
    ]);
  });

  it("puts an edited rule back to pending and clears its rejection reason", async () => {
    const rule = await createRule(member.token);
    expect(
      (await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/reject`, { reason: "Too broad" }))
        .statusCode,
    ).toBe(200);

    const res = await call(
      member.token,
      "PUT",
      `/user-alerts/${rule.id}`,
      newRule({ name: "Shed fires at home", keywords: ["shed", "home"] }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: "Shed fires at home",
      keywords: ["shed", "home"],
      status: "pending",
      rejection_reason: null,
    });

    await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/approve`);
    const again = await call(member.token, "PUT", `/user-alerts/${rule.id}`, newRule());
    expect(again.json().data.status).toBe("pending");
  });

  it("toggles only approved rules; others get 409 with a clear message", async () => {
    const rule = await createRule(member.token);
    const refused = await call(member.token, "PATCH", `/user-alerts/${rule.id}/toggle`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(TOGGLE_NEEDS_APPROVAL);

    await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/approve`);
    const off = await call(member.token, "PATCH", `/user-alerts/${rule.id}/toggle`);
    expect(off.statusCode).toBe(200);
    expect(off.json().data).toMatchObject({ status: "approved", is_active: false });
    const on = await call(member.token, "PATCH", `/user-alerts/${rule.id}/toggle`, { is_active: true });
    expect(on.json().data.is_active).toBe(true);

    await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/suspend`);
    const suspended = await call(member.token, "PATCH", `/user-alerts/${rule.id}/toggle`);
    expect(suspended.statusCode).toBe(409);
    expect(suspended.json().message).toContain("suspended");
  });

  it("deletes the user's rule", async () => {
    const rule = await createRule(member.token);
    const res = await call(member.token, "DELETE", `/user-alerts/${rule.id}`);
    expect(res.statusCode).toBe(200);
    expect(await app.db.select().from(userAlertRules).where(eq(userAlertRules.id, rule.id))).toEqual([]);
    expect((await call(member.token, "DELETE", `/user-alerts/${rule.id}`)).statusCode).toBe(404);
  });

  it("counts the triggers of the last 30 days", async () => {
    const rule = await createRule(member.token);
    const ids = await seedAlerts(3, "CFA", "OLD SHED FIRE");
    await app.db.insert(ruleTriggers).values([
      { ruleId: rule.id, alertId: ids[0]! },
      { ruleId: rule.id, alertId: ids[1]! },
      { ruleId: rule.id, alertId: ids[2]!, createdAt: new Date(Date.now() - 31 * 86_400_000) },
    ]);
    const list = await call(member.token, "GET", "/user-alerts");
    expect(list.json().data.find((r: { id: number }) => r.id === rule.id).triggers_last_30_days).toBe(2);
  });
});

let seq = 0;
/** Inserts alerts (with their recipient) directly; `ageDays` back-dates them. */
async function seedAlerts(
  n: number,
  agencyCode: string,
  text: string,
  options: { ageDays?: number; type?: string } = {},
) {
  const [capcode] = await app.db
    .insert(capcodes)
    .values({ capcode: String(3_000_000 + ++seq), agencyId: agency[agencyCode]! })
    .returning();
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = new Date(Date.now() - (options.ageDays ?? 0) * 86_400_000 - i * 1000);
    const [row] = await app.db
      .insert(alerts)
      .values({
        type: options.type ?? "emergency",
        rawMessage: `@@${text} ${seq}-${i}`,
        message: `${text} ${seq}-${i}`,
        capcode: capcode!.capcode,
        capcodeId: capcode!.id,
        agencyId: capcode!.agencyId,
        dedupeHash: `h-${seq}-${i}-${Math.random()}`,
        sentAt: createdAt,
        createdAt,
      })
      .returning();
    await app.db
      .insert(alertRecipients)
      .values({ alertId: row!.id, capcodeId: capcode!.id, agencyId: capcode!.agencyId });
    ids.push(row!.id);
  }
  // Seeded history is not new traffic: keep the matcher's queue out of it.
  await app.db.execute(sql`DELETE FROM rule_match_queue`);
  return ids;
}

describe("POST /user-alerts/preview", () => {
  it("counts and shows the newest matches of the last 3 months in the user's agencies", async () => {
    const word = "PREVIEWGRASS";
    await seedAlerts(3, "CFA", `ALERT ${word} FIRE NORTHCOTE`);
    await seedAlerts(1, "SES", `ALERT ${word} FIRE NORTHCOTE`);
    await seedAlerts(2, "FRV", `ALERT ${word} FIRE NORTHCOTE`); // not the member's agency
    await seedAlerts(2, "CFA", `ALERT ${word} FIRE NORTHCOTE`, { ageDays: 100 }); // too old
    await seedAlerts(2, "CFA", `ALERT ${word} NORTHCOTE`); // 'fire' missing

    const res = await call(member.token, "POST", "/user-alerts/preview", {
      keywords: [word.toLowerCase(), "Fire"],
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total_matches).toBe(4);
    expect(data.total_matches_capped).toBe(false);
    expect(data.sample_messages).toHaveLength(4);
    expect(Object.keys(data.sample_messages[0]).sort()).toEqual(["agency_name", "created_at", "message"]);
    expect(data.sample_messages.map((m: { agency_name: string }) => m.agency_name).sort()).toEqual([
      "Country Fire Authority",
      "Country Fire Authority",
      "Country Fire Authority",
      "State Emergency Service",
    ]);
    const times = data.sample_messages.map((m: { created_at: string }) => Date.parse(m.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("narrows to the chosen agencies and message types", async () => {
    const word = "PREVIEWTREE";
    await seedAlerts(2, "CFA", `${word} DOWN`);
    await seedAlerts(1, "SES", `${word} DOWN`, { type: "non-emergency" });
    const bySes = await call(member.token, "POST", "/user-alerts/preview", {
      keywords: [word],
      agencies: [agency.SES],
    });
    expect(bySes.json().data.total_matches).toBe(1);
    const byType = await call(member.token, "POST", "/user-alerts/preview", {
      keywords: [word],
      priority_levels: ["emergency"],
    });
    expect(byType.json().data.total_matches).toBe(2);
  });

  it("shows at most a few samples and caps the count", async () => {
    const word = "PREVIEWCAP";
    const [capcode] = await app.db
      .insert(capcodes)
      .values({ capcode: "3999999", agencyId: agency.CFA! })
      .returning();
    await app.db.execute(sql`
      WITH a AS (
        INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, dedupe_hash, sent_at)
        SELECT 'emergency', 'x', ${`${word} `} || g, '3999999', ${capcode!.id}, ${agency.CFA!}, 'cap-' || g, now()
        FROM generate_series(1, ${PREVIEW_COUNT_CAP + 5}) g
        RETURNING id
      )
      INSERT INTO alert_recipients (alert_id, capcode_id, agency_id) SELECT id, ${capcode!.id}, ${agency.CFA!} FROM a`);
    await app.db.execute(sql`DELETE FROM rule_match_queue`);

    const res = await call(member.token, "POST", "/user-alerts/preview", { keywords: [word] });
    expect(res.json().data.total_matches).toBe(PREVIEW_COUNT_CAP);
    expect(res.json().data.total_matches_capped).toBe(true);
    expect(res.json().data.sample_messages).toHaveLength(5);
  });

  it("treats % and _ in keywords as plain characters", async () => {
    await seedAlerts(1, "CFA", "PREVIEWPCT 100% CONTAINED");
    const hit = await call(member.token, "POST", "/user-alerts/preview", { keywords: ["100%"] });
    expect(hit.json().data.total_matches).toBe(1);
    const miss = await call(member.token, "POST", "/user-alerts/preview", { keywords: ["previewpct_100"] });
    expect(miss.json().data.total_matches).toBe(0);
  });
});

describe("admin review", () => {
  it("lists rules by status with their owners, for admins only", async () => {
    const rule = await createRule(other.token, { name: "For review", agencies: [agency.CFA] });
    const res = await call(admin.token, "GET", "/admin/user-alerts?status=pending");
    expect(res.statusCode).toBe(200);
    const item = res.json().data.find((r: { id: number }) => r.id === rule.id);
    expect(item).toMatchObject({
      name: "For review",
      status: "pending",
      user: { id: other.id, phone: other.phone, first_name: "Sam", last_name: "Tester" },
      agency_names: ["Country Fire Authority"],
    });
    expect(res.json().data.every((r: { status: string }) => r.status === "pending")).toBe(true);
    expect(res.json().pagination).toMatchObject({ limit: 200, offset: 0 });

    expect((await call(admin.token, "GET", "/admin/user-alerts?status=bogus")).statusCode).toBe(400);
  });

  it("approves a rule and tells its owner by SMS", async () => {
    const rule = await createRule(other.token, { name: "Approve me" });
    const res = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/approve`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: "approved", rejection_reason: null });
    const [row] = await app.db.select().from(userAlertRules).where(eq(userAlertRules.id, rule.id));
    expect(row).toMatchObject({ reviewedBy: admin.id });

    await app.smsWorker.runOnce();
    const sms = readOutbox(app).filter((m) => m.to === other.phone && m.body.includes('"Approve me"'));
    expect(sms.map((m) => m.body)).toEqual([
      'Turnout: your alert rule "Approve me" was approved. You will get an SMS when a message contains all of its keywords.',
    ]);

    const again = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/approve`);
    expect(again.statusCode).toBe(409);
  });

  it("rejects a rule with a reason the owner sees in the list and in an SMS", async () => {
    const rule = await createRule(other.token, { name: "Reject me" });
    const missing = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/reject`, { reason: "  " });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe("A reason is required.");

    const res = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/reject`, {
      reason: "Too broad: every job matches.",
    });
    expect(res.statusCode).toBe(200);
    const mine = (await call(other.token, "GET", "/user-alerts"))
      .json()
      .data.find((r: { id: number }) => r.id === rule.id);
    expect(mine).toMatchObject({ status: "rejected", rejection_reason: "Too broad: every job matches." });

    await app.smsWorker.runOnce();
    expect(
      readOutbox(app)
        .filter((m) => m.to === other.phone)
        .map((m) => m.body),
    ).toContain(
      'Turnout: your alert rule "Reject me" was not approved. Reason: Too broad: every job matches.',
    );
  });

  it("suspends only approved rules, telling the owner", async () => {
    const rule = await createRule(other.token, { name: "Suspend me" });
    const early = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/suspend`);
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toBe("Only approved alert rules can be suspended.");

    await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/approve`);
    const res = await call(admin.token, "POST", `/admin/user-alerts/${rule.id}/suspend`);
    expect(res.json().data.status).toBe("suspended");
    await app.smsWorker.runOnce();
    expect(
      readOutbox(app).some((m) => m.to === other.phone && m.body.includes('"Suspend me" was suspended')),
    ).toBe(true);
  });

  it("shows an admin the same matches the owner's preview showed, over the rule's agencies", async () => {
    const word = "REVIEWPREVIEWSHED";
    await seedAlerts(3, "CFA", `ALERT ${word} FIRE`);
    await seedAlerts(1, "SES", `ALERT ${word} FIRE`, { type: "non-emergency" });
    await seedAlerts(2, "FRV", `ALERT ${word} FIRE`); // the admin's agency, not the owner's
    await seedAlerts(1, "CFA", `ALERT ${word} FIRE`, { ageDays: 100 }); // older than 3 months
    await seedAlerts(2, "CFA", `ALERT ${word}`); // 'fire' missing

    for (const over of [
      {},
      { agencies: [agency.SES] },
      { agencies: [agency.CFA], priority_levels: ["emergency"] },
    ]) {
      const body = { keywords: [word.toLowerCase(), "fire"], ...over };
      const rule = await createRule(member.token, body);
      const seen = await call(member.token, "POST", "/user-alerts/preview", body);
      const res = await call(admin.token, "GET", `/admin/user-alerts/${rule.id}/preview`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual(seen.json().data);
    }
    const all = await createRule(member.token, { keywords: [word, "fire"] });
    const data = (await call(admin.token, "GET", `/admin/user-alerts/${all.id}/preview`)).json().data;
    expect(data.total_matches).toBe(4);
    expect(data.total_matches_capped).toBe(false);
    expect(data.sample_messages.map((m: { agency_name: string }) => m.agency_name).sort()).toEqual([
      "Country Fire Authority",
      "Country Fire Authority",
      "Country Fire Authority",
      "State Emergency Service",
    ]);
  });

  it("counts only the rule's agencies its owner still has, as the matcher does", async () => {
    const word = "REVIEWPREVIEWMOVED";
    await seedAlerts(2, "CFA", `${word} FIRE`);
    await seedAlerts(1, "SES", `${word} FIRE`);
    const owner = await person(["CFA", "SES"]);
    const rule = await createRule(owner.token, { keywords: [word], agencies: [agency.CFA, agency.SES] });
    const before = await call(admin.token, "GET", `/admin/user-alerts/${rule.id}/preview`);
    expect(before.json().data.total_matches).toBe(3);

    await app.db
      .delete(userAgencies)
      .where(and(eq(userAgencies.userId, owner.id), eq(userAgencies.agencyId, agency.CFA!)));
    const after = await call(admin.token, "GET", `/admin/user-alerts/${rule.id}/preview`);
    expect(after.json().data.total_matches).toBe(1);
    expect(after.json().data.sample_messages.map((m: { agency_name: string }) => m.agency_name)).toEqual([
      "State Emergency Service",
    ]);
  });

  it("answers 404 to a preview of an unknown rule and 401 without a sign-in", async () => {
    const missing = await call(admin.token, "GET", "/admin/user-alerts/999999/preview");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ success: false, message: "Alert rule not found." });
    const rule = await createRule(member.token);
    expect((await call(null, "GET", `/admin/user-alerts/${rule.id}/preview`)).statusCode).toBe(401);
  });

  it("answers 404 for an unknown rule", async () => {
    expect((await call(admin.token, "POST", "/admin/user-alerts/999999/approve")).statusCode).toBe(404);
  });

  it("reports counts by status, with pending_alerts for the tab's badge", async () => {
    const before = (await call(admin.token, "GET", "/admin/user-alerts/stats/overview")).json().data.overview;
    await createRule(other.token);
    const res = await call(admin.token, "GET", "/admin/user-alerts/stats/overview");
    expect(res.statusCode).toBe(200);
    const overview = res.json().data.overview;
    expect(overview.pending_alerts).toBe(before.pending_alerts + 1);
    expect(overview.total_alerts).toBe(
      overview.pending_alerts +
        overview.approved_alerts +
        overview.rejected_alerts +
        overview.suspended_alerts,
    );
    expect(Object.keys(overview).sort()).toEqual([
      "active_alerts",
      "approved_alerts",
      "pending_alerts",
      "rejected_alerts",
      "suspended_alerts",
      "total_alerts",
      "triggers_last_24_hours",
      "triggers_last_30_days",
      "users_with_alerts",
    ]);
  });

  it("answers 403 to a signed-in user who is not an admin, on every admin route", async () => {
    const rule = await createRule(member.token);
    for (const [method, url, body] of [
      ["GET", "/admin/user-alerts", undefined],
      ["GET", "/admin/user-alerts/stats/overview", undefined],
      ["GET", `/admin/user-alerts/${rule.id}/preview`, undefined],
      ["POST", `/admin/user-alerts/${rule.id}/approve`, undefined],
      ["POST", `/admin/user-alerts/${rule.id}/reject`, { reason: "no" }],
      ["POST", `/admin/user-alerts/${rule.id}/suspend`, undefined],
    ] as const) {
      const res = await call(member.token, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const [row] = await app.db.select().from(userAlertRules).where(eq(userAlertRules.id, rule.id));
    expect(row?.status).toBe("pending");
  });
});
