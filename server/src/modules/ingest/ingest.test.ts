import { UNMAPPED_AGENCY } from "@turnout/domain";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import {
  agencies,
  alertGroups,
  alertRecipients,
  alerts,
  capcodes,
  groupingSettings,
  systemLogs,
} from "../../db/schema.js";
import { parseFormLeniently } from "./routes.js";

const KEY = "test-ingest-key-0123456789";
let app: TestApp;
let cfa: number;

const ingest = (payload: unknown, key: string | null = KEY, headers: Record<string, string> = {}) =>
  app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    payload: payload as object,
  });

let seq = 0;
/** A made-up turnout message in the real Victorian grammar, unique per call. */
function turnout(prefix = "@@ALERT", job = `F2511${String(10000 + ++seq).padStart(5, "0")}`) {
  return `${prefix} ${job} KANG1 STRUC1 SHED FIRE ${seq} EXAMPLE RD KANGAROO FLAT /FIRST ST //SECOND AV M 45 C7 (512345) CKANG [KANG]`;
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  const [row] = await app.db.select().from(agencies).where(eq(agencies.code, "CFA"));
  cfa = row!.id;
  await app.db.insert(capcodes).values({ capcode: "0100001", agencyId: cfa, area: "Bendigo" });
});
afterAll(() => app.cleanup());

describe("POST /api/ingest/messages", () => {
  it("stores a message: type and displayed text from the prefix, agency and area from the capcode", async () => {
    const text = turnout();
    const res = await ingest({ capcode: "0100001", message: text, source: "rx-1", id: "m-1" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, created: 1, duplicates: 0 });
    const [row] = await app.db.select().from(alerts).where(eq(alerts.id, body.data[0].id));
    expect(row).toMatchObject({
      type: "emergency",
      rawMessage: text,
      message: text.slice(2),
      capcode: "0100001",
      agencyId: cfa,
      area: "Bendigo",
      source: "rx-1",
      sourceMessageId: "m-1",
    });
    expect(row?.jobNumber).toMatch(/^F2511\d{5}$/);
    expect(row?.hasMappableAddress).toBe(true);
    expect(row?.primaryAddress).toBe(`${seq} EXAMPLE RD, KANGAROO FLAT`);
    expect(row?.directionsUrl).toBe(
      `https://www.google.com/maps/dir/?api=1&destination=${seq}%20EXAMPLE%20RD%2C%20KANGAROO%20FLAT%2C%20VIC%2C%20Australia`,
    );
  });

  it("stores no directions link when the suburb is not a known locality", async () => {
    const text = "@@ALERT F251199001 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7 [BRAV]";
    const res = await ingest({ capcode: "0100001", message: text });
    const [row] = await app.db.select().from(alerts).where(eq(alerts.id, res.json().data[0].id));
    expect(row).toMatchObject({ hasMappableAddress: false, primaryAddress: null, directionsUrl: null });
  });

  it("stores a retried batch once (same source and ids)", async () => {
    const batch = {
      messages: [
        { capcode: "0100001", message: turnout(), source: "rx-2", id: "b-1" },
        { capcode: "0100001", message: turnout("Hb"), source: "rx-2", id: "b-2" },
      ],
    };
    const first = await ingest(batch);
    const again = await ingest(batch);
    expect(first.json().created).toBe(2);
    expect(again.json()).toMatchObject({ created: 0, duplicates: 2 });
    expect(again.json().data.map((d: { id: number }) => d.id)).toEqual(
      first.json().data.map((d: { id: number }) => d.id),
    );
    const rows = await app.db.select().from(alerts).where(eq(alerts.source, "rx-2"));
    expect(rows).toHaveLength(2);
  });

  it("treats the same text from another receiver within the window as one alert", async () => {
    const text = turnout();
    const a = await ingest({ capcode: "0100001", message: text, source: "rx-a" });
    const b = await ingest({ capcode: "0100001", message: `${text}   `, source: "rx-b" });
    expect(a.json().data[0].status).toBe("created");
    expect(b.json().data[0]).toEqual({ id: a.json().data[0].id, status: "duplicate" });
  });

  it("makes one alert of a message paged to several capcodes, with a recipient per capcode", async () => {
    await app.db.insert(capcodes).values({ capcode: "0200002", agencyId: cfa + 1 });
    const text = turnout();
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: text },
        { capcode: "0200002", message: text },
        { capcode: "100001", message: text },
      ],
    });
    const [first, second, third] = res.json().data;
    expect(first.status).toBe("created");
    expect(second).toEqual({ id: first.id, status: "merged" });
    expect(third).toEqual({ id: first.id, status: "duplicate" });
    const recipients = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.alertId, first.id));
    expect(recipients.map((r) => r.agencyId).sort()).toEqual([cfa, cfa + 1]);
  });

  it("keeps input order and one alert per text inside a batch: repeats of an id or a text point at the first", async () => {
    const [a, b] = [turnout(), turnout()];
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: a, source: "rx-order", id: "o-1" },
        { capcode: "0200002", message: a, source: "rx-order" },
        { capcode: "0100001", message: a, source: "rx-order", id: "o-1" },
        { capcode: "0100001", message: b, source: "rx-order", id: "o-2" },
        { capcode: "0100001", message: `${b} `, source: "rx-order" },
      ],
    });
    const data = res.json().data as { id: number; status: string }[];
    expect(data.map((d) => d.status)).toEqual(["created", "merged", "duplicate", "created", "duplicate"]);
    expect(data[1]!.id).toBe(data[0]!.id);
    expect(data[2]!.id).toBe(data[0]!.id);
    expect(data[4]!.id).toBe(data[3]!.id);
    expect(data[3]!.id).toBeGreaterThan(data[0]!.id);
    const rows = await app.db.select().from(alerts).where(eq(alerts.source, "rx-order"));
    expect(rows.map((r) => r.sourceMessageId).sort()).toEqual(["o-1", "o-2"]);
  });

  it("records an unknown capcode under UNMAPPED, zero-padded to 7 digits", async () => {
    const res = await ingest({ capcode: 4242, message: "QD TEST PAGE PLEASE IGNORE" });
    expect(res.statusCode).toBe(200);
    const [cap] = await app.db.select().from(capcodes).where(eq(capcodes.capcode, "0004242"));
    const [unmapped] = await app.db.select().from(agencies).where(eq(agencies.code, UNMAPPED_AGENCY.code));
    expect(cap?.agencyId).toBe(unmapped!.id);
    const [row] = await app.db.select().from(alerts).where(eq(alerts.id, res.json().data[0].id));
    expect(row).toMatchObject({
      type: "administrative",
      message: "TEST PAGE PLEASE IGNORE",
      jobNumber: null,
    });
  });

  it("groups messages by job number, never administrative or TIMEUPDATE ones", async () => {
    const job = "F251199999";
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: turnout("@@ALERT", job) },
        { capcode: "0100001", message: `Hb ${job} RESPOND TO STAGING AREA` },
        { capcode: "0100001", message: `QD ${job} ADMIN NOTE` },
        { capcode: "0100001", message: `@@ALERT ${job} TIMEUPDATE 0305` },
      ],
    });
    const ids = res.json().data.map((d: { id: number }) => d.id);
    const rows = await Promise.all(
      ids.map(async (id: number) => (await app.db.select().from(alerts).where(eq(alerts.id, id)))[0]!),
    );
    expect(rows[0]!.groupId).not.toBeNull();
    expect(rows[1]!.groupId).toBe(rows[0]!.groupId);
    expect(rows[2]!.groupId).toBeNull();
    expect(rows[3]!.groupId).toBeNull();
    const [group] = await app.db.select().from(alertGroups).where(eq(alertGroups.id, rows[0]!.groupId!));
    expect(group).toMatchObject({ jobNumber: job, messageCount: 2, hasEmergency: true });
  });

  it("keeps the duplicate window configurable: 0 stores every copy", async () => {
    await app.db
      .update(groupingSettings)
      .set({ value: "0" })
      .where(eq(groupingSettings.key, "duplicate_window_seconds"));
    try {
      const text = turnout();
      await ingest({ capcode: "0100001", message: text });
      const again = await ingest({ capcode: "0100001", message: text });
      expect(again.json().data[0].status).toBe("created");
    } finally {
      await app.db
        .update(groupingSettings)
        .set({ value: "120" })
        .where(eq(groupingSettings.key, "duplicate_window_seconds"));
    }
  });

  it("refuses an address that keeps sending wrong keys unheard, logging it once per window", async () => {
    const from = "198.51.100.99";
    const send = (key: string | null) =>
      app.inject({
        method: "POST",
        url: "/api/ingest/messages",
        remoteAddress: from,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        payload: { capcode: "0100001", message: turnout() },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await send(`wrong-key-${i}-wrong-key`)).statusCode);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    const refused = await send(null);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // The environment's key still gets through: a receiver behind the same address is not held up.
    expect((await send(KEY)).statusCode).toBe(200);
    const logged = await app.db.select().from(systemLogs).where(eq(systemLogs.ipAddress, from));
    expect(logged.map((l) => l.message)).toEqual([
      expect.stringMatching(/^Ingest: wrong key from 198\.51\.100\.99/),
      expect.stringMatching(/^Ingest: 10 wrong keys from 198\.51\.100\.99; refused for 15 minutes/),
    ]);
  });

  it("answers a wrong or missing key with 401 before looking at the body", async () => {
    expect((await ingest({ capcode: "1", message: "x" }, "wrong-key-wrong-key")).statusCode).toBe(401);
    expect((await ingest({ capcode: "1", message: "x" }, null)).statusCode).toBe(401);
    expect((await ingest("{broken", "nope-nope-nope-nope")).statusCode).toBe(401);
    expect((await ingest({ capcode: "1", message: "x" }, null, { "x-api-key": KEY })).statusCode).toBe(200);
  });

  it("answers a bad single message with 400 naming the field, and stores nothing", async () => {
    const before = (await app.db.select().from(alerts)).length;
    const bad: [unknown, string][] = [
      [{ capcode: "0100001" }, "body.message"],
      [{ message: "no capcode" }, "body.capcode"],
      [{ capcode: "12ab", message: "x" }, "body.capcode"],
      [{ capcode: "0100001", message: "   " }, "body.message"],
      [{ capcode: "0100001", message: "\u0000\u0007 " }, "body.message"],
      [{ capcode: "0100001", message: "x".repeat(2001) }, "body.message"],
      [{ capcode: "0100001", message: 42 }, "body.message"],
      [{ capcode: "0100001", message: "x", timestamp: "yesterday" }, "body.timestamp"],
    ];
    for (const [payload, field] of bad) {
      const res = await ingest(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
      expect(res.json().message).toContain(`Invalid ${field}`);
    }
    expect((await app.db.select().from(alerts)).length).toBe(before);
  });

  it("answers 400 to a batch that is not one: no messages, more than 1000, not JSON, not an object", async () => {
    const before = (await app.db.select().from(alerts)).length;
    const good = { capcode: "0100001", message: turnout() };
    for (const payload of [
      { messages: [] },
      { messages: "all of them" },
      { messages: Array.from({ length: 1001 }, () => good) },
      [good],
    ]) {
      const res = await ingest(payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    }
    const broken = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      payload: '{"capcode": "1", ',
    });
    expect(broken.statusCode).toBe(400);
    expect((await app.db.select().from(alerts)).length).toBe(before);
  });

  it("answers 80,000 spaces and a letter with 400 at once, on both routes (no quadratic trim)", async () => {
    const text = `${" ".repeat(80_000)}x`;
    const started = performance.now();
    const single = await ingest({ capcode: "0100001", message: text });
    const native = performance.now() - started;
    expect(single.statusCode).toBe(400);
    expect(single.json().message).toContain("at most 2000 characters");
    // Ten of them in one batch: each refused on its own, still in one quick reply.
    const batch = await ingest({
      messages: Array.from({ length: 10 }, () => ({ capcode: "1", message: text })),
    });
    expect(batch.statusCode).toBe(200);
    expect(batch.json().refused).toHaveLength(10);
    const pagermonStart = performance.now();
    const form = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: KEY, "content-type": "application/x-www-form-urlencoded" },
      payload: `address=1234567&message=${"+".repeat(20_000)}x`,
    });
    const pagermon = performance.now() - pagermonStart;
    expect(form.statusCode).toBe(400);
    // The trim it replaced took 2.4 s for 40,000 spaces and 30 s for 80,000 (issue 28).
    expect(native).toBeLessThan(50);
    expect(pagermon).toBeLessThan(50);
  });

  it("refuses a body bigger than a full batch can be with 413 before parsing it", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      payload: `{"messages":[${'"x",'.repeat(1_800_000)}"x"]}`,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, message: "The request body is too large." });
    // A full batch of the longest texts still fits.
    const full = Array.from({ length: 1000 }, (_, i) => ({
      capcode: "0100001",
      message: `${"é".repeat(1990)}${i}`,
      id: "i".repeat(128),
      source: "s".repeat(64),
      timestamp: new Date().toISOString(),
    }));
    expect(Buffer.byteLength(JSON.stringify({ messages: full }))).toBeGreaterThan(4_000_000);
    const fits = await ingest({ messages: full.map((m) => ({ ...m, capcode: "x" })) });
    expect(fits.statusCode).toBe(200);
    expect(fits.json().refused).toHaveLength(1000);
  });

  it("stores every valid message of a batch and lists each refused one with its index, id and reason", async () => {
    const [a, b] = [turnout(), turnout()];
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: a, source: "rx-mixed", id: "x-1" },
        { capcode: "12ab", message: turnout(), source: "rx-mixed", id: "x-2" },
        { capcode: "0100001", message: "   ", source: "rx-mixed", id: "x-3" },
        { capcode: "0100001", message: turnout(), timestamp: "yesterday" },
        "not a message",
        { capcode: "0100001", message: b, source: "rx-mixed", id: "x-6" },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, created: 2, duplicates: 0 });
    expect(body.data.map((d: { status: string }) => d.status)).toEqual(["created", "created"]);
    expect(body.refused.map((r: { index: number; id: string | null }) => [r.index, r.id])).toEqual([
      [1, "x-2"],
      [2, "x-3"],
      [3, null],
      [4, null],
    ]);
    expect(body.refused[0].reason).toBe("capcode: A capcode is 1 to 10 digits.");
    expect(body.refused[1].reason).toBe("message: message is required");
    expect(body.refused[2].reason).toContain("timestamp");
    const rows = await app.db.select().from(alerts).where(eq(alerts.source, "rx-mixed"));
    expect(rows.map((r) => [r.id, r.sourceMessageId, r.rawMessage])).toEqual([
      [body.data[0].id, "x-1", a],
      [body.data[1].id, "x-6", b],
    ]);
  });

  it("answers an all-valid batch as before, with an empty refused list", async () => {
    const res = await ingest({ messages: [{ capcode: "0100001", message: turnout() }] });
    expect(res.json()).toEqual({
      success: true,
      data: [{ id: expect.any(Number), status: "created" }],
      created: 1,
      duplicates: 0,
      refused: [],
    });
  });

  it("stores text, source and id carrying NUL, control characters and lone surrogates, made storable", async () => {
    const text = turnout();
    // Written by hand so the escapes reach the server exactly as a decoder's JSON would carry them.
    const payload = `{"messages": [
      {"capcode": "0100001", "message": "\\u0000${text}\\u0007\\u001b\\u0000", "source": "rx-\\u0000nul", "id": "n\\u0000-1"},
      {"capcode": "0100001", "message": "@@ALERT \\ud800 LONE HIGH \\udc00 LONE LOW ${seq}", "source": "rx-\\ud800", "id": "s-\\udfff"}
    ]}`;
    const send = () =>
      app.inject({
        method: "POST",
        url: "/api/ingest/messages",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        payload,
      });
    const res = await send();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ created: 2, refused: [] });
    const [nul, lone] = res.json().data as { id: number }[];
    const [rowNul] = await app.db.select().from(alerts).where(eq(alerts.id, nul!.id));
    expect(rowNul).toMatchObject({ rawMessage: text, source: "rx-nul", sourceMessageId: "n-1" });
    const [rowLone] = await app.db.select().from(alerts).where(eq(alerts.id, lone!.id));
    expect(rowLone).toMatchObject({
      type: "emergency",
      message: `ALERT \uFFFD LONE HIGH \uFFFD LONE LOW ${seq}`,
      source: "rx-\uFFFD",
      sourceMessageId: "s-\uFFFD",
    });
    // The cleaned id is the idempotency key: the retried batch is stored once.
    expect((await send()).json()).toMatchObject({ created: 0, duplicates: 2 });
  });

  it("stores a message whose JSON body holds bytes that are not UTF-8, with U+FFFD in their place", async () => {
    const text = turnout();
    const res = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      payload: Buffer.concat([
        Buffer.from(`{"capcode": "0100001", "message": "${text} `),
        Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from(' END"}'),
      ]),
    });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await app.db.select().from(alerts).where(eq(alerts.id, res.json().data[0].id));
    expect(row!.rawMessage).toBe(`${text} \uFFFD\uFFFD(\uFFFD\uFFFD\uFFFD END`);
  });

  it("refuses a timestamp no date can hold, naming the field: huge, negative, text, past year 9999", async () => {
    const bad = [
      1e20,
      8.64e15 + 1,
      -1,
      "abc",
      "10000-01-01T00:00:00Z",
      "+275760-09-13T00:00:00Z",
      "9999-12-31T23:00:00-05:00",
    ];
    const res = await ingest({
      messages: bad.map((timestamp) => ({ capcode: "0100001", message: turnout(), timestamp })),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().created).toBe(0);
    expect(res.json().refused).toHaveLength(bad.length);
    for (const refusal of res.json().refused) expect(refusal.reason).toMatch(/^timestamp: timestamp must be/);
    const single = await ingest({ capcode: "0100001", message: turnout(), timestamp: 1e20 });
    expect(single.statusCode).toBe(400);
    expect(single.json().message).toContain("timestamp must be unix seconds or milliseconds");
  });

  it("stores the sender's timestamp as the time shown (unix seconds or ISO), and the receipt time", async () => {
    const seconds = Math.floor(Date.now() / 1000) - 3 * 3600;
    const iso = new Date(Date.now() - 2 * 86_400_000).toISOString().replace(/\.\d+Z$/, "+00:00");
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: turnout(), timestamp: seconds },
        { capcode: "0100001", message: turnout(), timestamp: iso },
      ],
    });
    const [a, b] = res.json().data;
    const rowA = (await app.db.select().from(alerts).where(eq(alerts.id, a.id)))[0]!;
    const rowB = (await app.db.select().from(alerts).where(eq(alerts.id, b.id)))[0]!;
    expect(rowA.sentAt.toISOString()).toBe(new Date(seconds * 1000).toISOString());
    expect(rowB.sentAt.toISOString()).toBe(new Date(iso).toISOString());
    expect(Date.now() - rowA.createdAt.getTime()).toBeLessThan(60_000);
  });

  it("stores the receipt time when the sender's time is in the future or older than a spool holds", async () => {
    const res = await ingest({
      messages: [
        { capcode: "0100001", message: turnout(), timestamp: Date.now() / 1000 + 3 * 86_400 },
        { capcode: "0100001", message: turnout(), timestamp: 1_000_000_000 },
        { capcode: "0100001", message: turnout() },
      ],
    });
    expect(res.statusCode).toBe(200);
    for (const { id } of res.json().data) {
      const [row] = await app.db.select().from(alerts).where(eq(alerts.id, id));
      expect(Math.abs(row!.sentAt.getTime() - row!.createdAt.getTime())).toBeLessThan(1_000);
    }
  });
});

describe("PagerMon-compatible POST /api/messages", () => {
  it("accepts PagerMon's form body and apikey header, answering the new id as text", async () => {
    const text = turnout();
    const res = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: KEY, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        address: "0100001",
        message: text,
        datetime: "1763780645",
        source: "pmon",
      }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    expect(res.body).toMatch(/^\d+$/);
    const again = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: KEY },
      payload: { address: "0100001", message: text, datetime: 1_763_780_645, source: "pmon" },
    });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe("Ignoring duplicate");
  });

  const pagermonForm = (body: string | Buffer) =>
    app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: KEY, "content-type": "application/x-www-form-urlencoded" },
      payload: body,
    });

  it("stores a form message carrying %00 and bytes that are not UTF-8, made storable", async () => {
    const text = turnout();
    // An hour ago: recent enough to be shown as the pager's time (domain pagerTime).
    const paged = Math.floor(Date.now() / 1000) - 3600;
    const encoded = encodeURIComponent(text).replace(/%20/g, "+");
    const res = await pagermonForm(
      Buffer.concat([
        Buffer.from(`address=0100001&message=%00${encoded}+%FF+%ED%A0%80+`),
        Buffer.from([0xfe]),
        Buffer.from(`+%E2%82+END%00&datetime=${paged}&source=pmon%00-form`),
      ]),
    );
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await app.db
      .select()
      .from(alerts)
      .where(eq(alerts.id, Number(res.body)));
    expect(row).toMatchObject({
      rawMessage: `${text} \uFFFD \uFFFD\uFFFD\uFFFD \uFFFD \uFFFD END`,
      source: "pmon-form",
    });
    expect(row!.sentAt.toISOString()).toBe(new Date(paged * 1000).toISOString());
  });

  it("stores a JSON message carrying NUL and a lone surrogate", async () => {
    const text = turnout();
    const res = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: KEY, "content-type": "application/json" },
      payload: `{"address": "0100001", "message": "${text}\\u0000 \\ud83d", "source": "pmon-json"}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await app.db
      .select()
      .from(alerts)
      .where(eq(alerts.id, Number(res.body)));
    expect(row!.rawMessage).toBe(`${text} \uFFFD`);
  });

  it("answers 400 naming datetime when it is no date, and takes a blank one as now", async () => {
    for (const datetime of [
      "1e20",
      "100000000000000000000",
      "8640000000000001",
      "-1",
      "abc",
      "10000-01-01T00:00:00Z",
    ]) {
      const res = await pagermonForm(
        new URLSearchParams({ address: "0100001", message: turnout(), datetime }).toString(),
      );
      expect(res.statusCode, datetime).toBe(400);
      expect(res.json().message, datetime).toContain("datetime must be unix seconds or milliseconds");
    }
    for (const datetime of [1e20, 8.64e15, -5]) {
      const res = await app.inject({
        method: "POST",
        url: "/api/messages",
        headers: { apikey: KEY },
        payload: { address: "0100001", message: turnout(), datetime },
      });
      expect(res.statusCode, String(datetime)).toBe(400);
    }
    const before = Date.now();
    const blank = await pagermonForm(
      new URLSearchParams({ address: "0100001", message: turnout(), datetime: "" }).toString(),
    );
    expect(blank.statusCode).toBe(200);
    const [row] = await app.db
      .select()
      .from(alerts)
      .where(eq(alerts.id, Number(blank.body)));
    expect(row!.sentAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("answers a bad message with 400 as PagerMon does", async () => {
    const res = await pagermonForm(new URLSearchParams({ address: "12ab", message: "x" }).toString());
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain("address");
  });

  it("answers a bad key with 401", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/messages",
      headers: { apikey: "nope" },
      payload: { address: "1", message: "x" },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe("parseFormLeniently", () => {
  it("reads plus as space and escapes as UTF-8 bytes, keeps a broken escape as text, and lets the first repeat win", () => {
    expect(
      parseFormLeniently(Buffer.from("message=SHED+FIRE%20%E2%9C%93&x=%zz%4&message=second&flag&&")),
    ).toEqual({
      message: "SHED FIRE ✓",
      x: "%zz%4",
      flag: "",
    });
    expect(parseFormLeniently(Buffer.from("a=%C3"))).toEqual({ a: "\uFFFD" });
    expect(parseFormLeniently(Buffer.alloc(0))).toEqual({});
  });
});

describe("admin-issued ingest keys", () => {
  it("issues a key that works until it is revoked; non-admins cannot issue", async () => {
    const admin = await createUser(app, { isAdmin: true });
    const user = await createUser(app);
    const adminToken = await signIn(app, admin.phone);
    const userToken = await signIn(app, user.phone);
    const denied = await app.inject({
      method: "POST",
      url: "/api/admin/ingest-keys",
      headers: { authorization: `Bearer ${userToken}` },
      payload: { name: "station" },
    });
    expect(denied.statusCode).toBe(403);

    const issued = await app.inject({
      method: "POST",
      url: "/api/admin/ingest-keys",
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { name: "Bendigo receiver" },
    });
    expect(issued.statusCode).toBe(201);
    const { key, id } = issued.json().data;
    expect((await ingest({ capcode: "0100001", message: turnout() }, key)).statusCode).toBe(200);
    const list = await app.inject({
      method: "GET",
      url: "/api/admin/ingest-keys",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(JSON.stringify(list.json())).not.toContain(key);

    await app.inject({
      method: "DELETE",
      url: `/api/admin/ingest-keys/${id}`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect((await ingest({ capcode: "0100001", message: turnout() }, key)).statusCode).toBe(401);
  });
});
