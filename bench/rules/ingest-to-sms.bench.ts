import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { UNMAPPED_AGENCY } from "@turnout/domain";
import pg from "pg";
import { buildApp } from "../../server/src/app.js";
import { loadConfig } from "../../server/src/config.js";
import { createScratchDatabase } from "../../server/test/scratch-database.js";
import { machineLine } from "../support/machine.js";
import { pagerMessage, ruleKeywords, seededRandom, victorianVocabulary } from "./vic-pager.js";

/**
 * Time from ingest's reply to the rule SMS being queued (committed, visible to the SMS worker),
 * against the real server over HTTP on PostgreSQL, with 100,000 approved rules.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres [REDIS_URL=redis://127.0.0.1:6379] \
 *     npx tsx bench/rules/ingest-to-sms.bench.ts
 *
 * A scratch database is created on that server and dropped at the end. Messages are sent one at a
 * time; after each reply a separate connection polls (about every millisecond) until the SMS row for
 * that alert is committed, or the alert has left the match queue without any (no rule fired).
 */
const RULES = Number(process.env.RULES ?? 100_000);
const USERS = Number(process.env.USERS ?? 20_000);
const MESSAGES = Number(process.env.MESSAGES ?? 300);
const KEY = "bench-ingest-key-0123456789abcdef";

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl)
  throw new Error("Set DATABASE_URL to a PostgreSQL server (a scratch database is created there).");
const scratch = await createScratchDatabase(baseUrl);
const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-bench-"));
const next = seededRandom(42);
const vocab = victorianVocabulary();

const app = await buildApp(
  loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: scratch.url,
    ...(process.env.REDIS_URL
      ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: `bench-${process.pid}:` }
      : {}),
    INGEST_API_KEY: KEY,
    JWT_SECRET: "bench-secret-bench-secret-bench-secret",
    LOG_LEVEL: "warn",
    PUBLIC_URL: "https://turnout.example",
  }),
);
const observer = new pg.Client({ connectionString: scratch.url });

try {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  await observer.connect();

  // Agencies with 20 capcodes each; users in one or two agencies; rules spread over the users.
  const agencyRows = (
    await observer.query("SELECT id, code FROM agencies WHERE code <> $1", [UNMAPPED_AGENCY.code])
  ).rows as { id: number; code: string }[];
  const agencyIds = agencyRows.map((a) => a.id);
  const capcodeList: string[] = [];
  for (const [i, a] of agencyRows.entries()) {
    const codes = Array.from({ length: 20 }, (_, j) => String(1_000_000 + i * 100 + j));
    capcodeList.push(...codes);
    await observer.query("INSERT INTO capcodes (capcode, agency_id) SELECT unnest($1::text[]), $2", [
      codes,
      a.id,
    ]);
  }
  const seedStarted = performance.now();
  const userIds = (
    await observer.query(
      `INSERT INTO users (first_name, last_name, phone, is_verified, is_active)
       SELECT 'Bench', 'User' || g, '+614' || lpad(g::text, 8, '0'), true, true FROM generate_series(1, $1) g
       RETURNING id`,
      [USERS],
    )
  ).rows.map((r: { id: number }) => r.id);
  const ua: [number[], number[]] = [[], []];
  const userAgencies = new Map<number, number[]>();
  for (const id of userIds) {
    const own = [agencyIds[Math.floor(next() * agencyIds.length)]!];
    if (next() < 0.2) own.push(agencyIds[Math.floor(next() * agencyIds.length)]!);
    userAgencies.set(id, [...new Set(own)]);
    for (const a of new Set(own)) {
      ua[0].push(id);
      ua[1].push(a);
    }
  }
  await observer.query(
    "INSERT INTO user_agencies (user_id, agency_id) SELECT * FROM unnest($1::int[], $2::int[])",
    ua,
  );
  for (let start = 0; start < RULES; start += 10_000) {
    const chunk = Array.from({ length: Math.min(10_000, RULES - start) }, () => {
      const owner = userIds[Math.floor(next() * userIds.length)]!;
      const own = userAgencies.get(owner)!;
      return {
        owner,
        keywords: JSON.stringify(ruleKeywords(vocab, next)),
        agencies: JSON.stringify(next() < 0.3 ? [own[0]] : []),
        levels: JSON.stringify(next() < 0.6 ? [] : ["emergency"]),
      };
    });
    await observer.query(
      `INSERT INTO user_alert_rules (user_id, name, keywords, agencies, priority_levels, status, is_active)
       SELECT o, 'bench', k::jsonb, a::jsonb, l::jsonb, 'approved', true
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS t(o, k, a, l)`,
      [
        chunk.map((c) => c.owner),
        chunk.map((c) => c.keywords),
        chunk.map((c) => c.agencies),
        chunk.map((c) => c.levels),
      ],
    );
  }
  const seedMs = performance.now() - seedStarted;
  app.ruleMatcher.rulesChanged();

  async function send(seq: number) {
    const message = pagerMessage(vocab, next, seq);
    const capcode = capcodeList[Math.floor(next() * capcodeList.length)]!;
    const t0 = performance.now();
    const res = await fetch(`${url}/api/ingest/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ capcode, message: message.raw, source: "bench", id: `m-${seq}` }),
    });
    const body = (await res.json()) as { data: { id: number }[] };
    const replied = performance.now();
    const alertId = body.data[0]!.id;
    for (;;) {
      const { rows } = await observer.query(
        `SELECT (SELECT count(*) FROM rule_match_queue WHERE alert_id = $1)::int AS queued,
                (SELECT count(*) FROM sms_queue s JOIN rule_triggers t ON t.id = s.rule_trigger_id
                 WHERE t.alert_id = $1)::int AS sms`,
        [alertId],
      );
      const { queued, sms } = rows[0] as { queued: number; sms: number };
      if (sms > 0) return { replyMs: replied - t0, toSmsMs: performance.now() - replied, sms };
      if (queued === 0) return { replyMs: replied - t0, toSmsMs: null, sms: 0 };
      if (performance.now() - replied > 10_000) throw new Error(`alert ${alertId}: nothing after 10 s`);
    }
  }

  // Warm-up: builds the rule index (100k rules) and warms the connection pool.
  for (let i = 0; i < 10; i++) await send(i);

  const results = [];
  for (let i = 0; i < MESSAGES; i++) {
    results.push(await send(1000 + i));
    await new Promise((r) => setTimeout(r, 20));
  }
  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
  };
  const toSms = results.filter((r) => r.toSmsMs !== null).map((r) => r.toSmsMs!);
  const replies = results.map((r) => r.replyMs);
  const index = app.ruleMatcher.currentIndex();
  console.log(machineLine());
  console.log(
    JSON.stringify(
      {
        database: "PostgreSQL (node-postgres)",
        cache: app.cache.kind,
        rules: RULES,
        users: USERS,
        indexed_rules: index?.ruleCount,
        seed_seconds: Math.round(seedMs / 100) / 10,
        messages: results.length,
        messages_with_sms: toSms.length,
        sms_per_matching_message:
          Math.round((toSms.length ? results.reduce((n, r) => n + r.sms, 0) / toSms.length : 0) * 10) / 10,
        ingest_reply_ms: { p50: pct(replies, 50), p95: pct(replies, 95) },
        reply_to_sms_queued_ms: { p50: pct(toSms, 50), p95: pct(toSms, 95), max: pct(toSms, 100) },
      },
      null,
      2,
    ),
  );
} finally {
  await observer.end().catch(() => {});
  await app.close();
  await scratch.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
