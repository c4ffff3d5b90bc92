import { formatDateTime } from "@turnout/domain";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testEngine } from "../../../test/build-app.js";
import { createUser, readOutbox } from "../../../test/factories.js";
import {
  agencies,
  alerts,
  capcodes,
  ruleMatchQueue,
  ruleTriggers,
  smsQueue,
  userAgencies,
  userAlertRules,
  users,
} from "../../db/schema.js";
import type { PollingLoop } from "../../support/polling-loop.js";
import { RuleMatcher, rulesChanged } from "./matcher.js";
import { claimQueuedAlerts, fireRules, loadIndexedRules } from "./matching.js";
import { RuleIndex } from "./rule-index.js";

const KEY = "test-ingest-key-rules-0123456789";
const PUBLIC_URL = "https://turnout.example";
let app: TestApp;
const agency: Record<string, number> = {};
const CAPCODE = { CFA: "0200001", SES: "0200002", FRV: "0200003", CFA2: "0200004" } as const;

let seq = 0;
/** A made-up Victorian turnout, unique per call (so ingest never treats it as a duplicate). */
function turnout(prefix = "@@ALERT", body = "STRUC1 SHED FIRE") {
  seq += 1;
  return `${prefix} F25${String(1_000_000 + seq)} BRAV2 ${body} ${seq} EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7 (512345) CBRAV [BRAV]`;
}

async function ingest(messages: { capcode: string; message: string; timestamp?: string }[]) {
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number; status: string }[]).map((d) => d.id);
}

/** Ingests, then waits until the matcher has drained the queue (the nudged cycle runs first). */
async function ingestAndMatch(messages: { capcode: string; message: string; timestamp?: string }[]) {
  const ids = await ingest(messages);
  await app.ruleMatcher.runOnce();
  return ids;
}

async function rule(
  userId: number,
  keywords: string[],
  options: { agencies?: number[]; priorityLevels?: string[]; status?: string; isActive?: boolean } = {},
) {
  const [row] = await app.db
    .insert(userAlertRules)
    .values({
      userId,
      name: keywords.join(" "),
      keywords,
      agencies: options.agencies ?? [],
      priorityLevels: options.priorityLevels ?? [],
      status: options.status ?? "approved",
      isActive: options.isActive ?? true,
    })
    .returning();
  rulesChanged(app.services);
  return row!;
}

async function triggersOf(ruleId: number) {
  return app.db.select().from(ruleTriggers).where(eq(ruleTriggers.ruleId, ruleId));
}

async function smsTo(phone: string) {
  return app.db
    .select()
    .from(smsQueue)
    .where(and(eq(smsQueue.toPhone, phone), eq(smsQueue.kind, "rule")));
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY, PUBLIC_URL });
  for (const row of await app.db.select().from(agencies)) agency[row.code] = row.id;
  await app.db.insert(capcodes).values([
    { capcode: CAPCODE.CFA, agencyId: agency.CFA! },
    { capcode: CAPCODE.SES, agencyId: agency.SES! },
    { capcode: CAPCODE.FRV, agencyId: agency.FRV! },
    { capcode: CAPCODE.CFA2, agencyId: agency.CFA! },
  ]);
  await app.ready();
});
afterAll(() => app.cleanup());
beforeEach(async () => {
  await app.db.delete(userAlertRules);
  await app.db.delete(smsQueue);
  rulesChanged(app.services);
});

describe("keyword rules fire on committed alerts", () => {
  it("queues one SMS with type, agency, message and job link when all keywords appear, any case", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed", "SOMEVILLE"]);
    const text = turnout();

    const [alertId] = await ingestAndMatch([{ capcode: CAPCODE.CFA, message: text }]);

    const sms = await smsTo(user.phone);
    expect(sms).toHaveLength(1);
    expect(sms[0]!.body).toBe(`EMERGENCY CFA: ${text.slice(2)} ${PUBLIC_URL}/j/${alertId}`);
    expect(sms[0]!.userId).toBe(user.id);
    const triggers = await triggersOf(r.id);
    expect(triggers.map((t) => t.alertId)).toEqual([alertId]);
    expect(sms[0]!.ruleTriggerId).toBe(triggers[0]!.id);

    await app.smsWorker.runOnce();
    expect(
      readOutbox(app)
        .filter((m) => m.to === user.phone)
        .map((m) => m.body),
    ).toEqual([sms[0]!.body]);
  });

  it("says in the SMS when a page replayed late from a receiver's spool was paged", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    await rule(user.id, ["shed"]);
    const text = turnout();
    const pagedAt = new Date(Date.now() - 2 * 3_600_000);
    const [alertId] = await ingestAndMatch([
      { capcode: CAPCODE.CFA, message: text, timestamp: pagedAt.toISOString() },
    ]);
    const sms = await smsTo(user.phone);
    expect(sms.map((m) => m.body)).toEqual([
      `EMERGENCY CFA (paged ${formatDateTime(pagedAt)}): ${text.slice(2)} ${PUBLIC_URL}/j/${alertId}`,
    ]);
  });

  it("does not fire when one keyword is missing", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed", "house"]);

    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);

    expect(await triggersOf(r.id)).toEqual([]);
    expect(await smsTo(user.phone)).toEqual([]);
  });

  it("fires only for the rule's message types; 'admin' means administrative; none means all", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const nonEmergency = await rule(user.id, ["shed"], { priorityLevels: ["non-emergency"] });
    const adminOnly = await rule(user.id, ["meeting"], { priorityLevels: ["admin"] });
    const any = await rule(user.id, ["brav2"]);

    const [emergencyId, hbId, qdId] = await ingestAndMatch([
      { capcode: CAPCODE.CFA, message: turnout("@@ALERT") },
      { capcode: CAPCODE.CFA, message: turnout("Hb") },
      { capcode: CAPCODE.CFA, message: turnout("QD", "MEMBERS MEETING") },
    ]);

    expect((await triggersOf(nonEmergency.id)).map((t) => t.alertId)).toEqual([hbId]);
    expect((await triggersOf(adminOnly.id)).map((t) => t.alertId)).toEqual([qdId]);
    expect((await triggersOf(any.id)).map((t) => t.alertId).sort()).toEqual([emergencyId, hbId, qdId].sort());
  });

  it("fires only for the rule's agencies; none means all of the user's", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA", "SES"] });
    const sesOnly = await rule(user.id, ["shed"], { agencies: [agency.SES!] });
    const all = await rule(user.id, ["example"]);

    const [cfaId, sesId, frvId] = await ingestAndMatch([
      { capcode: CAPCODE.CFA, message: turnout() },
      { capcode: CAPCODE.SES, message: turnout() },
      { capcode: CAPCODE.FRV, message: turnout() },
    ]);

    expect((await triggersOf(sesOnly.id)).map((t) => t.alertId)).toEqual([sesId]);
    // FRV is not one of the user's agencies: a blank agency list never reaches beyond them.
    expect((await triggersOf(all.id)).map((t) => t.alertId).sort()).toEqual([cfaId, sesId].sort());
    expect(frvId).toBeDefined();
  });

  it("needs the user to be assigned to the agency when the alert arrives, not when the rule was made", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA", "SES"] });
    const r = await rule(user.id, ["shed"], { agencies: [agency.CFA!] });
    await app.db
      .delete(userAgencies)
      .where(and(eq(userAgencies.userId, user.id), eq(userAgencies.agencyId, agency.CFA!)));

    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);

    expect(await triggersOf(r.id)).toEqual([]);
  });

  it("matches any agency the message was paged to, including a copy merged from another capcode", async () => {
    const cfaUser = await createUser(app, { agencyCodes: ["CFA"] });
    const sesUser = await createUser(app, { agencyCodes: ["SES"] });
    const cfaRule = await rule(cfaUser.id, ["shed"]);
    const sesRule = await rule(sesUser.id, ["shed"]);
    const text = turnout();

    const [first] = await ingestAndMatch([{ capcode: CAPCODE.CFA, message: text }]);
    expect((await triggersOf(cfaRule.id)).map((t) => t.alertId)).toEqual([first]);
    expect(await triggersOf(sesRule.id)).toEqual([]);

    // The same text paged to an SES capcode a moment later: one alert, a new recipient agency.
    const [merged] = await ingestAndMatch([{ capcode: CAPCODE.SES, message: text }]);
    expect(merged).toBe(first);
    expect((await triggersOf(sesRule.id)).map((t) => t.alertId)).toEqual([first]);
    expect(await smsTo(sesUser.phone)).toHaveLength(1);
    expect((await smsTo(sesUser.phone))[0]!.body).toMatch(/^EMERGENCY SES: /);
    // The CFA rule already fired for this alert: no second SMS.
    expect(await smsTo(cfaUser.phone)).toHaveLength(1);
  });

  it("never fires for a duplicate retransmission that ingest suppressed", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"]);
    const text = turnout();

    const [a] = await ingestAndMatch([{ capcode: CAPCODE.CFA, message: text }]);
    const [b] = await ingestAndMatch([{ capcode: CAPCODE.CFA, message: text }]);
    const [c] = await ingestAndMatch([
      { capcode: CAPCODE.CFA2, message: text },
      { capcode: CAPCODE.CFA, message: text },
    ]);

    expect(new Set([a, b, c]).size).toBe(1);
    expect(await triggersOf(r.id)).toHaveLength(1);
    expect(await smsTo(user.phone)).toHaveLength(1);
  });

  it("never fires pending, rejected, suspended or disabled rules", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const silent = [
      await rule(user.id, ["shed"], { status: "pending" }),
      await rule(user.id, ["shed"], { status: "rejected" }),
      await rule(user.id, ["shed"], { status: "suspended" }),
      await rule(user.id, ["shed"], { isActive: false }),
    ];

    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);

    for (const r of silent) expect(await triggersOf(r.id)).toEqual([]);
    expect(await smsTo(user.phone)).toEqual([]);
  });

  it("stops firing as soon as a rule is switched off or suspended, and starts when approved", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"], { status: "pending" });
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await triggersOf(r.id)).toHaveLength(0);

    await app.db.update(userAlertRules).set({ status: "approved" }).where(eq(userAlertRules.id, r.id));
    rulesChanged(app.services);
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await triggersOf(r.id)).toHaveLength(1);

    await app.db.update(userAlertRules).set({ isActive: false }).where(eq(userAlertRules.id, r.id));
    rulesChanged(app.services);
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await triggersOf(r.id)).toHaveLength(1);
  });

  it("never fires for a switched-off account, and fires again once it is switched back on", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"]);
    await app.db.update(users).set({ isActive: false }).where(eq(users.id, user.id));
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await triggersOf(r.id)).toEqual([]);

    // No rule changed, so no rebuild: the index must still hold the rule.
    await app.db.update(users).set({ isActive: true }).where(eq(users.id, user.id));
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await triggersOf(r.id)).toHaveLength(1);
  });

  it("sends a user one SMS per alert even when several of their rules fire", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const a = await rule(user.id, ["shed"]);
    const b = await rule(user.id, ["someville"]);

    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);

    expect(await triggersOf(a.id)).toHaveLength(1);
    expect(await triggersOf(b.id)).toHaveLength(1);
    expect(await smsTo(user.phone)).toHaveLength(1);
  });

  it("leaves nothing in the match queue once matched, with or without rules", async () => {
    await ingestAndMatch([{ capcode: CAPCODE.CFA, message: turnout() }]);
    expect(await app.db.select().from(ruleMatchQueue)).toEqual([]);
  });
});

describe("exactly once per rule and alert", () => {
  it("gives one trigger and one SMS when two matcher runs process the same alerts at the same time", async () => {
    const users = await Promise.all(
      Array.from({ length: 5 }, () => createUser(app, { agencyCodes: ["CFA"] })),
    );
    for (const u of users) await rule(u.id, ["shed"]);
    const ids = await ingest(
      Array.from({ length: 10 }, () => ({ capcode: CAPCODE.CFA, message: turnout() })),
    );
    await app.ruleMatcher.runOnce();
    await app.db.delete(ruleTriggers);
    await app.db.delete(smsQueue);
    const index = RuleIndex.build(await loadIndexedRules(app.db));

    const runs = await Promise.all(
      [0, 1, 2].map(() => app.db.transaction((tx) => fireRules(tx, index, ids, { publicUrl: null }))),
    );

    expect(runs.reduce((n, r) => n + r.length, 0)).toBe(50);
    const triggers = await app.db.select().from(ruleTriggers).where(inArray(ruleTriggers.alertId, ids));
    expect(triggers).toHaveLength(50);
    const sms = await app.db.select().from(smsQueue).where(eq(smsQueue.kind, "rule"));
    expect(sms).toHaveLength(50);
    expect(new Set(sms.map((s) => s.ruleTriggerId)).size).toBe(50);
  });

  it("shares the queue between two matchers (two server instances) without double SMS", async () => {
    const users = await Promise.all(
      Array.from({ length: 4 }, () => createUser(app, { agencyCodes: ["CFA"] })),
    );
    for (const u of users) await rule(u.id, ["shed"]);
    await app.ruleMatcher.stop();
    const other = new RuleMatcher({
      db: app.db,
      cache: app.cache,
      logger: app.log as unknown as Logger,
      publicUrl: null,
      nudgeSms: () => {},
      batchSize: 3,
    });
    const mine = new RuleMatcher({
      db: app.db,
      cache: app.cache,
      logger: app.log as unknown as Logger,
      publicUrl: null,
      nudgeSms: () => {},
      batchSize: 3,
    });
    try {
      const ids = await ingest(
        Array.from({ length: 12 }, () => ({ capcode: CAPCODE.CFA, message: turnout() })),
      );
      const fired = await Promise.all([mine.runOnce(), other.runOnce(), mine.runOnce(), other.runOnce()]);

      expect(fired.reduce((a, b) => a + b, 0)).toBe(48);
      const sms = await app.db.select().from(smsQueue).where(eq(smsQueue.kind, "rule"));
      expect(sms).toHaveLength(48);
      const triggers = await app.db.select().from(ruleTriggers).where(inArray(ruleTriggers.alertId, ids));
      expect(triggers).toHaveLength(48);
    } finally {
      await mine.stop();
      await other.stop();
      app.ruleMatcher.start();
    }
  });
});

describe("crash safety", () => {
  it("matches alerts committed while no matcher ran once one starts (e.g. after a crash)", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"]);
    await app.ruleMatcher.stop();
    let ids: number[] = [];
    try {
      ids = await ingest([
        { capcode: CAPCODE.CFA, message: turnout() },
        { capcode: CAPCODE.CFA, message: turnout() },
      ]);
      // Committed and queued, but nobody matched them: the state a crash after ingest's commit leaves.
      const queued = await app.db.select().from(ruleMatchQueue).where(inArray(ruleMatchQueue.alertId, ids));
      expect(queued).toHaveLength(2);
      expect(await triggersOf(r.id)).toEqual([]);
    } finally {
      app.ruleMatcher.start();
    }
    await app.ruleMatcher.runOnce();

    expect((await triggersOf(r.id)).map((t) => t.alertId).sort()).toEqual(ids.sort());
    expect(await smsTo(user.phone)).toHaveLength(2);
  });

  it("keeps the queue rows when the matching transaction fails, and matches them on a later cycle", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"]);
    await app.ruleMatcher.stop();
    // The SMS insert fails inside the matcher's transaction, as if the database dropped it mid-way.
    await app.db.execute(
      sql`ALTER TABLE sms_queue ADD CONSTRAINT sms_queue_test_block CHECK (kind <> 'rule') NOT VALID`,
    );
    const matcher = new RuleMatcher({
      db: app.db,
      cache: app.cache,
      logger: app.log as unknown as Logger,
      publicUrl: null,
      nudgeSms: () => {},
    });
    try {
      const [id] = await ingest([{ capcode: CAPCODE.CFA, message: turnout() }]);
      await matcher.runOnce();
      expect(await triggersOf(r.id)).toEqual([]);
      expect(await app.db.select().from(ruleMatchQueue).where(eq(ruleMatchQueue.alertId, id!))).toHaveLength(
        1,
      );

      await app.db.execute(sql`ALTER TABLE sms_queue DROP CONSTRAINT sms_queue_test_block`);
      await matcher.runOnce();
      expect((await triggersOf(r.id)).map((t) => t.alertId)).toEqual([id]);
      expect(await smsTo(user.phone)).toHaveLength(1);
    } finally {
      await app.db.execute(sql`ALTER TABLE sms_queue DROP CONSTRAINT IF EXISTS sms_queue_test_block`);
      await matcher.stop();
      app.ruleMatcher.start();
    }
  });

  // Deleting an alert must not wait for, or deadlock with, a matcher that has taken it off the queue:
  // the queue keeps no foreign key to alerts (migration 0020), and the matcher skips alerts gone.
  it.skipIf(testEngine !== "postgres")(
    "deletes an alert at once while a matcher holds its queue row, and the matcher then skips it",
    async () => {
      const user = await createUser(app, { agencyCodes: ["CFA"] });
      const r = await rule(user.id, ["shed"]);
      const index = RuleIndex.build(await loadIndexedRules(app.db));
      await app.ruleMatcher.stop();
      try {
        const [id] = await ingest([{ capcode: CAPCODE.CFA, message: turnout() }]);
        let claimed!: (ids: number[]) => void;
        const claim = new Promise<number[]>((resolve) => {
          claimed = resolve;
        });
        let deleted!: () => void;
        const deletion = new Promise<void>((resolve) => {
          deleted = resolve;
        });
        const matching = app.db.transaction(async (tx) => {
          const ids = await claimQueuedAlerts(tx, 10);
          claimed(ids);
          await deletion;
          return fireRules(tx, index, ids, { publicUrl: null });
        });
        expect(await claim).toContain(id);
        try {
          await app.db.transaction(async (tx) => {
            await tx.execute(sql`SET LOCAL lock_timeout = '3s'`);
            await tx.delete(alerts).where(eq(alerts.id, id!));
          });
        } finally {
          deleted();
        }
        expect(await matching).toEqual([]);
        expect(await triggersOf(r.id)).toEqual([]);
        expect(await app.db.select().from(ruleMatchQueue).where(eq(ruleMatchQueue.alertId, id!))).toEqual([]);
      } finally {
        app.ruleMatcher.start();
      }
    },
  );

  it("dequeues alerts too old to be worth an SMS without sending one", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    const r = await rule(user.id, ["shed"]);
    await app.ruleMatcher.stop();
    try {
      const [id] = await ingest([{ capcode: CAPCODE.CFA, message: turnout() }]);
      await app.db
        .update(alerts)
        .set({ createdAt: sql`now() - interval '7 hours'` })
        .where(eq(alerts.id, id!));
    } finally {
      app.ruleMatcher.start();
    }
    await app.ruleMatcher.runOnce();

    expect(await triggersOf(r.id)).toEqual([]);
    expect(await app.db.select().from(ruleMatchQueue)).toEqual([]);
  });
});

describe("ingest reply", () => {
  it("does not wait for matching: the reply comes back with the alert queued for the matcher", async () => {
    const user = await createUser(app, { agencyCodes: ["CFA"] });
    await rule(user.id, ["shed"]);
    await app.ruleMatcher.runOnce();
    const release = await holdMatcher();
    try {
      const [id] = await ingest([{ capcode: CAPCODE.CFA, message: turnout() }]);
      expect(await app.db.select().from(ruleMatchQueue).where(eq(ruleMatchQueue.alertId, id!))).toHaveLength(
        1,
      );
    } finally {
      release();
    }
    await app.ruleMatcher.runOnce();
    expect(await smsTo(user.phone)).toHaveLength(1);
  });
});

/** Keeps the app's matcher busy (its next cycle waits) until the returned function is called. */
async function holdMatcher(): Promise<() => void> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { loop } = app.ruleMatcher as unknown as { loop: PollingLoop };
  // Exclusive work holds every later cycle back until it ends.
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  void loop.runExclusive(async () => {
    held();
    await gate;
  });
  await holding;
  return release;
}
