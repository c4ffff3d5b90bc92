import { NOT_ANSWERABLE } from "@turnout/domain";
import { eq, inArray } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { withTwoInstances } from "../../../test/two-instances.js";
import { agencies, alerts, capcodes } from "../../db/schema.js";

const KEY = "responding-test-ingest-key-0";
let app: TestApp;
const token: Record<"cfaA" | "cfaB" | "ses" | "frv" | "admin", string> = {
  cfaA: "",
  cfaB: "",
  ses: "",
  frv: "",
  admin: "",
};
let cfaAId: number;
let counter = 0;

type Detail = {
  alert_id: number;
  job_alert_id: number;
  responding: number;
  not_available: number;
  mine: { status: string; eta_minutes: number | null; answered_at: string } | null;
  open: boolean;
  closes_at: string;
  people: {
    user_id: number;
    first_name: string;
    status: string;
    eta_minutes: number | null;
    answered_at: string;
  }[];
};

async function ingest(target: TestApp, messages: { capcode: string; message: string }[]) {
  const res = await target.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number }[]).map((r) => r.id);
}

/** A fresh emergency job (its own job number) paged to the given capcodes; resolves to its alert id. */
async function emergency(target: TestApp = app, capcodeList = ["0700001"], text = "STRUC1 HOUSE FIRE") {
  counter += 1;
  const job = `F2611${String(counter).padStart(5, "0")}`;
  const ids = await ingest(
    target,
    capcodeList.map((capcode) => ({ capcode, message: `@@ALERT ${job} ${text} ${counter} MAIN RD` })),
  );
  return ids[0]!;
}

const call = (method: "GET" | "PUT" | "DELETE", url: string, who: string, payload?: unknown, target = app) =>
  target.inject({
    method,
    url,
    headers: { authorization: `Bearer ${who}` },
    ...(payload ? { payload } : {}),
  });
const answer = (id: number, who: string, payload: unknown = { status: "responding" }) =>
  call("PUT", `/api/alerts/${id}/response`, who, payload);

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY, RESPONSE_WINDOW_HOURS: "6" });
  const rows = await app.db.select().from(agencies);
  const id = (code: string) => rows.find((a) => a.code === code)!.id;
  await app.db.insert(capcodes).values([
    { capcode: "0700001", agencyId: id("CFA") },
    { capcode: "0700002", agencyId: id("SES") },
    { capcode: "0700003", agencyId: id("FRV") },
  ]);
  const a = await createUser(app, { agencyCodes: ["CFA"], firstName: "Alex" });
  cfaAId = a.id;
  token.cfaA = await signIn(app, a.phone);
  token.cfaB = await signIn(app, (await createUser(app, { agencyCodes: ["CFA"], firstName: "Bo" })).phone);
  token.ses = await signIn(app, (await createUser(app, { agencyCodes: ["SES"], firstName: "Sam" })).phone);
  token.frv = await signIn(app, (await createUser(app, { agencyCodes: ["FRV"], firstName: "Fin" })).phone);
  token.admin = await signIn(app, (await createUser(app, { agencyCodes: [], isAdmin: true })).phone);
});
afterAll(async () => {
  await app?.cleanup();
});

describe("answering an emergency job", () => {
  it("records a member's answer with its ETA and shows it to their agency", async () => {
    const id = await emergency();
    const res = await answer(id, token.cfaA, { status: "responding", eta_minutes: 10 });
    expect(res.statusCode).toBe(200);
    const mine = res.json() as Detail;
    expect(mine).toMatchObject({
      alert_id: id,
      job_alert_id: id,
      responding: 1,
      not_available: 0,
      open: true,
    });
    expect(mine.mine).toMatchObject({ status: "responding", eta_minutes: 10 });
    expect(Date.now() - Date.parse(mine.mine!.answered_at)).toBeLessThan(10_000);

    const seen = (await call("GET", `/api/alerts/${id}/responses`, token.cfaB)).json() as Detail;
    expect(seen).toMatchObject({ responding: 1, not_available: 0, mine: null });
    expect(seen.people).toEqual([
      expect.objectContaining({ user_id: cfaAId, first_name: "Alex", eta_minutes: 10 }),
    ]);
  });

  it("lets a member change and withdraw an answer; not available carries no ETA", async () => {
    const id = await emergency();
    await answer(id, token.cfaA, { status: "responding", eta_minutes: 5 });
    const changed = (
      await answer(id, token.cfaA, { status: "not_available", eta_minutes: 5 })
    ).json() as Detail;
    expect(changed).toMatchObject({ responding: 0, not_available: 1 });
    expect(changed.mine).toMatchObject({ status: "not_available", eta_minutes: null });
    const withdrawn = await call("DELETE", `/api/alerts/${id}/response`, token.cfaA);
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json()).toMatchObject({ responding: 0, not_available: 0, mine: null, people: [] });
  });

  it("counts the job in batches, leaving out what the caller may not read and pages without a job", async () => {
    const ours = await emergency();
    const theirs = await emergency(app, ["0700003"]);
    const [routine] = await ingest(app, [{ capcode: "0700001", message: "Hb CHECK HYDRANTS AT STATION" }]);
    await answer(ours, token.cfaA);
    await answer(ours, token.cfaB, { status: "not_available" });
    const res = await call(
      "GET",
      `/api/alerts/responses?ids=${ours},${theirs},${routine},${ours}`,
      token.cfaB,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual([
      expect.objectContaining({
        alert_id: ours,
        responding: 1,
        not_available: 1,
        mine: expect.objectContaining({ status: "not_available" }),
      }),
    ]);
  });

  it("shows counts but not names to a member of another agency the job was paged to", async () => {
    const id = await emergency(app, ["0700001", "0700002"]);
    await answer(id, token.cfaA);
    const ses = (await call("GET", `/api/alerts/${id}/responses`, token.ses)).json() as Detail;
    expect(ses).toMatchObject({ responding: 1, people: [] });
    const sesAnswer = (await answer(id, token.ses, { status: "not_available" })).json() as Detail;
    expect(sesAnswer.people.map((p) => p.first_name)).toEqual(["Sam"]);
    const cfa = (await call("GET", `/api/alerts/${id}/responses`, token.cfaB)).json() as Detail;
    expect(cfa).toMatchObject({ responding: 1, not_available: 1 });
    expect(cfa.people.map((p) => p.first_name)).toEqual(["Alex"]);
  });

  it("answers 404 to a member of an agency the job was not paged to", async () => {
    const id = await emergency();
    await answer(id, token.cfaA);
    expect((await call("GET", `/api/alerts/${id}/responses`, token.frv)).statusCode).toBe(404);
    expect((await answer(id, token.frv)).statusCode).toBe(404);
    expect((await call("GET", `/api/alerts/responses?ids=${id}`, token.frv)).json().items).toEqual([]);
    expect((await call("GET", "/api/alerts/99999999/responses", token.cfaA)).statusCode).toBe(404);
  });

  it("takes answers for any page with a job number: an SES S-job, a non-emergency job", async () => {
    const [sesJob] = await ingest(app, [
      { capcode: "0700001", message: "S261127080 SES BENDIGO BUILDING DAMAGE 12 HIGH ST BENDIGO" },
    ]);
    const [routine] = await ingest(app, [{ capcode: "0700001", message: "Hb F261188888 HYDRANT CHECK" }]);
    for (const id of [sesJob!, routine!]) {
      const res = await answer(id, token.cfaA);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ responding: 1 });
    }
  });

  it("refuses answers to a page without a job number, and to an administrative page, saying why", async () => {
    const [plain] = await ingest(app, [{ capcode: "0700001", message: "Hb STATION OPEN DAY SUNDAY" }]);
    const [admin] = await ingest(app, [{ capcode: "0700001", message: "QD F261177777 RADIO CHECK" }]);
    const noJob = await answer(plain!, token.cfaA);
    expect(noJob.statusCode).toBe(400);
    expect(noJob.json().message).toBe(NOT_ANSWERABLE.noJob);
    const administrative = await answer(admin!, token.cfaA);
    expect(administrative.statusCode).toBe(400);
    expect(administrative.json().message).toBe(NOT_ANSWERABLE.administrative);
  });

  it("refuses an answer once the job has closed, and says it is closed", async () => {
    const id = await emergency();
    await answer(id, token.cfaA);
    await app.db
      .update(alerts)
      .set({ sentAt: new Date(Date.now() - 6 * 3_600_000 - 1000) })
      .where(eq(alerts.id, id));
    const res = await answer(id, token.cfaB);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      errorType: "conflict",
      message: "This job has closed for responses.",
    });
    expect((await call("DELETE", `/api/alerts/${id}/response`, token.cfaA)).statusCode).toBe(409);
    const seen = (await call("GET", `/api/alerts/${id}/responses`, token.cfaB)).json() as Detail;
    expect(seen).toMatchObject({ open: false, responding: 1 });
  });

  it("counts an answer on a later page of a grouped job for the whole job", async () => {
    counter += 1;
    const job = `F2612${String(counter).padStart(5, "0")}`;
    const [first] = await ingest(app, [
      { capcode: "0700001", message: `@@ALERT ${job} GRASS FIRE FIRST PAGE` },
    ]);
    const [second] = await ingest(app, [{ capcode: "0700001", message: `@@ALERT ${job} GRASS FIRE UPDATE` }]);
    const [group] = await app.db
      .select({ groupId: alerts.groupId })
      .from(alerts)
      .where(inArray(alerts.id, [first!, second!]));
    expect(group?.groupId).not.toBeNull();
    const res = (await answer(second!, token.cfaA)).json() as Detail;
    expect(res).toMatchObject({ alert_id: second, job_alert_id: first, responding: 1 });
    const items = (await call("GET", `/api/alerts/responses?ids=${first},${second}`, token.cfaB)).json()
      .items;
    expect(items.map((i: Detail) => [i.alert_id, i.job_alert_id, i.responding])).toEqual([
      [first, first, 1],
      [second, first, 1],
    ]);
  });

  it("keeps the time of an answer given offline, within the job's first page and now", async () => {
    const id = await emergency();
    // Paged ten minutes ago; the phone was offline for part of that.
    await app.db
      .update(alerts)
      .set({ sentAt: new Date(Date.now() - 600_000) })
      .where(eq(alerts.id, id));
    const [row] = await app.db.select({ sentAt: alerts.sentAt }).from(alerts).where(eq(alerts.id, id));
    const early = new Date(row!.sentAt.getTime() - 3_600_000).toISOString();
    const first = (
      await answer(id, token.cfaA, { status: "responding", answered_at: early })
    ).json() as Detail;
    expect(first.mine!.answered_at).toBe(row!.sentAt.toISOString());
    const later = new Date(row!.sentAt.getTime() + 60_000).toISOString();
    const kept = (
      await answer(id, token.cfaA, { status: "not_available", answered_at: later })
    ).json() as Detail;
    expect(kept.mine).toMatchObject({ status: "not_available", answered_at: later });
    // An older answer arriving late (from a phone that was offline) does not replace the newer one.
    const stale = new Date(row!.sentAt.getTime() + 30_000).toISOString();
    const after = (
      await answer(id, token.cfaA, { status: "responding", answered_at: stale })
    ).json() as Detail;
    expect(after.mine).toMatchObject({ status: "not_available", answered_at: later });
  });

  it("refuses malformed answers and id lists with a clear 400", async () => {
    const id = await emergency();
    for (const body of [
      { status: "maybe" },
      { status: "responding", eta_minutes: 7 },
      { status: "responding", eta_minutes: "10" },
      { status: "responding", answered_at: "yesterday" },
      {},
    ]) {
      const res = await answer(id, token.cfaA, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errorType).toBe("validation_error");
    }
    for (const ids of ["", "1,x", "0", "1,,2", Array.from({ length: 101 }, (_, i) => i + 1).join(",")]) {
      const res = await call("GET", `/api/alerts/responses?ids=${ids}`, token.cfaA);
      expect(res.statusCode, ids.slice(0, 20)).toBe(400);
    }
  });

  it("shows admins everyone's answers with their agencies, and nobody else", async () => {
    const id = await emergency(app, ["0700001", "0700002"]);
    await answer(id, token.cfaA, { status: "responding", eta_minutes: 15 });
    await answer(id, token.ses, { status: "not_available" });
    const res = await call("GET", `/api/admin/alerts/${id}/responses`, token.admin);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      job_alert_id: id,
      responding: 1,
      not_available: 1,
      people: [
        expect.objectContaining({
          first_name: "Alex",
          agency_names: ["Country Fire Authority"],
          eta_minutes: 15,
        }),
        expect.objectContaining({ first_name: "Sam", agency_names: ["State Emergency Service"] }),
      ],
    });
    expect((await call("GET", `/api/admin/alerts/${id}/responses`, token.cfaA)).statusCode).toBe(403);
    // An admin reads every job but answers only for an agency of their own.
    expect((await answer(id, token.admin)).statusCode).toBe(404);
  });
});

describe.skipIf(!process.env.REDIS_URL)("answers live across two instances", () => {
  it("shows each member the other's answer live, and a member of another agency nothing", async () => {
    await withTwoInstances({ INGEST_API_KEY: KEY }, async (a, b, urlOf) => {
      const rows = await a.db.select().from(agencies);
      const id = (code: string) => rows.find((x) => x.code === code)!.id;
      await a.db.insert(capcodes).values([
        { capcode: "0800001", agencyId: id("CFA") },
        { capcode: "0800003", agencyId: id("FRV") },
      ]);
      const one = await createUser(a, { agencyCodes: ["CFA"], firstName: "One" });
      const two = await createUser(b, { agencyCodes: ["CFA"], firstName: "Two" });
      const other = await createUser(b, { agencyCodes: ["FRV"], firstName: "Other" });
      const tokens = {
        one: await signIn(a, one.phone),
        two: await signIn(b, two.phone),
        other: await signIn(b, other.phone),
      };
      const sockets: Socket[] = [];
      const listen = async (who: string, base: string) => {
        const s = connect(base, {
          transports: ["polling"],
          auth: { token: who },
          reconnection: false,
          forceNew: true,
        });
        sockets.push(s);
        const got: { job_alert_id: number; responding: number; not_available: number }[] = [];
        s.on("alert:responses", (e) => got.push(e));
        await new Promise<void>((resolve) =>
          s.once("joined-user-agencies", () => resolve()).emit("join-user-agencies"),
        );
        return got;
      };
      try {
        const seenByOne = await listen(tokens.one, urlOf(a));
        const seenByTwo = await listen(tokens.two, urlOf(b));
        const seenByOther = await listen(tokens.other, urlOf(b));
        const job = await emergency(a, ["0800001"], "TWO INSTANCES");

        const put = (target: TestApp, who: string, status: string) =>
          call("PUT", `/api/alerts/${job}/response`, who, { status }, target);
        expect((await put(a, tokens.one, "responding")).statusCode).toBe(200);
        await expect
          .poll(() => seenByTwo.at(-1), { timeout: 5000 })
          .toEqual({
            job_alert_id: job,
            responding: 1,
            not_available: 0,
          });
        expect((await put(b, tokens.two, "not_available")).statusCode).toBe(200);
        await expect
          .poll(() => seenByOne.at(-1), { timeout: 5000 })
          .toEqual({
            job_alert_id: job,
            responding: 1,
            not_available: 1,
          });
        // The other agency's member heard nothing (give the Redis hop the same time it took above).
        await new Promise((r) => setTimeout(r, 300));
        expect(seenByOther).toEqual([]);
        expect(
          (await call("GET", `/api/alerts/${job}/responses`, tokens.other, undefined, b)).statusCode,
        ).toBe(404);
      } finally {
        for (const s of sockets) s.disconnect();
      }
    });
  });
});
