import { detectMessageType, displayText } from "@turnout/domain";
import type pg from "pg";
import { textHash } from "../../../server/src/modules/ingest/service.js";
import { type BenchAgency, recipientsFor } from "./agencies.js";
import { type PagerTraffic, RARE_SUBURB, rng } from "./messages.js";
import { RARE_COUNT } from "./search-classes.js";

const BATCH = 25_000;
const SPAN_DAYS = 730;

export type LoadTimes = { rowsSeconds: number; indexSeconds: number; analyseSeconds: number };

type Batch = { alerts: unknown[]; recipients: unknown[] };

/** One batch of generated alerts and their recipients, as the column arrays of the unnest insert. */
function generate(
  first: number,
  n: number,
  total: number,
  agencies: BenchAgency[],
  traffic: PagerTraffic,
  random: () => number,
  rare: Set<number>,
): Batch {
  const start = Date.now() - SPAN_DAYS * 86_400_000;
  const step = (SPAN_DAYS * 86_400_000) / total;
  const codeById = new Map(agencies.map((a) => [a.id, a.code]));
  const cols = {
    id: [] as number[],
    type: [] as string[],
    raw: [] as string[],
    message: [] as string[],
    capcode: [] as string[],
    capcodeId: [] as number[],
    agencyId: [] as number[],
    area: [] as string[],
    job: [] as (string | null)[],
    address: [] as (string | null)[],
    hash: [] as string[],
    sentAt: [] as string[],
    createdAt: [] as string[],
    /** alerts.agency_ids as an array literal: the recipients' agencies, distinct and ascending. */
    agencyIds: [] as string[],
  };
  const rec = { alertId: [] as number[], capcodeId: [] as number[], agencyId: [] as number[] };
  for (let id = first; id < first + n; id++) {
    const m = traffic.next(rare.has(id) ? RARE_SUBURB : undefined);
    const recipients = recipientsFor(m, agencies, random);
    const primary = recipients[0]!;
    const text = displayText(m.raw);
    const at = new Date(start + id * step + Math.floor(random() * step));
    cols.id.push(id);
    cols.type.push(detectMessageType(m.raw));
    cols.raw.push(m.raw);
    cols.message.push(text);
    cols.capcode.push(primary.capcode);
    cols.capcodeId.push(primary.id);
    cols.agencyId.push(primary.agencyId);
    cols.area.push(codeById.get(primary.agencyId)!);
    cols.job.push(m.jobNumber);
    cols.address.push(m.address);
    cols.hash.push(textHash(text));
    cols.sentAt.push(new Date(at.getTime() - 2_000).toISOString());
    cols.createdAt.push(at.toISOString());
    cols.agencyIds.push(
      `{${[...new Set(recipients.map((r) => r.agencyId))].sort((a, b) => a - b).join(",")}}`,
    );
    for (const r of recipients) {
      rec.alertId.push(id);
      rec.capcodeId.push(r.id);
      rec.agencyId.push(r.agencyId);
    }
  }
  return {
    alerts: [
      cols.id,
      cols.type,
      cols.raw,
      cols.message,
      cols.capcode,
      cols.capcodeId,
      cols.agencyId,
      cols.area,
      cols.job,
      cols.address,
      cols.hash,
      cols.sentAt,
      cols.createdAt,
      cols.agencyIds,
    ],
    recipients: [rec.alertId, rec.capcodeId, rec.agencyId],
  };
}

async function insert(client: pg.PoolClient, batch: Batch): Promise<void> {
  await client.query(
    `INSERT INTO alerts (id, type, raw_message, message, capcode, capcode_id, agency_id, area, job_number,
       primary_address, has_mappable_address, source, dedupe_hash, sent_at, created_at, agency_ids)
     SELECT id, type, raw, msg, capcode, capcode_id, agency_id, area, job, addr, addr IS NOT NULL, 'bench',
            hash, sent_at, created_at, agency_ids::integer[]
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[],
                   $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[],
                   $14::text[])
         AS t(id, type, raw, msg, capcode, capcode_id, agency_id, area, job, addr, hash, sent_at, created_at,
              agency_ids)`,
    batch.alerts,
  );
  await client.query(
    `INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[])`,
    batch.recipients,
  );
}

/**
 * Bulk-loads `total` alerts and their recipients into an empty, migrated database: triggers and foreign
 * key checks off (session_replication_role = replica; the loader writes alerts.agency_ids itself), the
 * secondary indexes dropped first and rebuilt after, rows as `INSERT … SELECT FROM unnest(…)` batches
 * of 25,000 (one statement per batch, COPY-like speed) with the next batch generated while PostgreSQL
 * writes the last one; then the indexes, the trigram GIN index on its own connection beside the B-trees
 * (parallel B-tree builds), and VACUUM ANALYZE. The data only depends on `traffic`'s seed and `total`.
 */
export async function loadAlerts(
  pool: pg.Pool,
  agencies: BenchAgency[],
  traffic: PagerTraffic,
  total: number,
  log: (line: string) => void,
): Promise<LoadTimes> {
  const client = await pool.connect();
  const second = await pool.connect();
  try {
    for (const c of [client, second]) {
      await c.query("SET session_replication_role = replica");
      await c.query("SET maintenance_work_mem = '2GB'");
      await c.query("SET max_parallel_maintenance_workers = 2");
      await c.query("SET statement_timeout = 0");
    }
    const { rows: indexes } = await client.query<{ indexname: string; indexdef: string; tablename: string }>(
      `SELECT indexname, indexdef, tablename FROM pg_indexes
        WHERE schemaname = 'public' AND tablename IN ('alerts', 'alert_recipients', 'search_words')
          AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
    );
    for (const i of indexes) await client.query(`DROP INDEX ${i.indexname}`);

    const random = rng(7);
    const rare = new Set<number>();
    while (rare.size < RARE_COUNT) rare.add(1 + Math.floor(random() * total));
    const t0 = performance.now();
    let writing: Promise<void> = Promise.resolve();
    for (let first = 1; first <= total; first += BATCH) {
      const n = Math.min(BATCH, total - first + 1);
      const batch = generate(first, n, total, agencies, traffic, random, rare);
      await writing;
      writing = insert(client, batch);
      if ((first - 1) % (BATCH * 40) === 0)
        log(
          `loaded ${(first - 1).toLocaleString("en-AU")} alerts (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
        );
    }
    await writing;
    const rowsSeconds = (performance.now() - t0) / 1000;
    log(`rows in ${rowsSeconds.toFixed(1)} s; building ${indexes.length} indexes`);
    const t1 = performance.now();
    const isGin = (def: string) => / USING gin /i.test(def);
    const build = async (c: pg.PoolClient, defs: string[]) => {
      for (const def of defs) {
        const t = performance.now();
        await c.query(def);
        log(`  ${((performance.now() - t) / 1000).toFixed(1)} s: ${def}`);
      }
    };
    // search_words (migration 0016): its trigger is off with the others, so the words come in one go.
    const fillWords = async () => {
      const t = performance.now();
      await client.query(
        "INSERT INTO search_words (word) SELECT DISTINCT w FROM alerts, unnest(string_to_array(lower(message), ' ')) AS w",
      );
      log(`  ${((performance.now() - t) / 1000).toFixed(1)} s: search_words filled`);
    };
    await Promise.all([
      build(
        second,
        indexes.filter((i) => isGin(i.indexdef) && i.tablename === "alerts").map((i) => i.indexdef),
      ),
      (async () => {
        await fillWords();
        await build(
          client,
          indexes.filter((i) => !isGin(i.indexdef) || i.tablename !== "alerts").map((i) => i.indexdef),
        );
      })(),
    ]);
    await client.query(`SELECT setval(pg_get_serial_sequence('alerts', 'id'), ${total})`);
    const indexSeconds = (performance.now() - t1) / 1000;
    log(`indexes in ${indexSeconds.toFixed(1)} s; VACUUM ANALYZE`);
    const t2 = performance.now();
    await client.query("RESET session_replication_role");
    await client.query("VACUUM (ANALYZE) alerts, alert_recipients");
    await client.query("ANALYZE");
    return { rowsSeconds, indexSeconds, analyseSeconds: (performance.now() - t2) / 1000 };
  } finally {
    client.release();
    second.release();
  }
}
