import { createHash } from "node:crypto";
import {
  type AlertType,
  detectMessageType,
  displayText,
  extractAddress,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import {
  agencies,
  alertGroups,
  alertRecipients,
  alerts,
  capcodes,
  groupingPatterns,
  groupingSettings,
} from "../../db/schema.js";
import type { AlertRow } from "../alerts/present.js";
import {
  activePatterns,
  type CompiledPattern,
  type GroupingSettings,
  getGroupingSettings,
  jobNumberFor,
} from "../grouping/service.js";
import { matchRulesAfterCommit } from "../rules/matcher.js";

/** One decoded pager message as a receiver sends it. */
export type IncomingMessage = {
  capcode: string;
  message: string;
  sentAt: Date;
  source: string;
  /** The sender's idempotency key: a retried message with the same source and id is stored once. */
  id: string | null;
};

export type IngestStatus = "created" | "merged" | "duplicate";
export type IngestResult = { id: number; status: IngestStatus };

type Prepared = IncomingMessage & {
  type: AlertType;
  text: string;
  hash: string;
  jobNumber: string | null;
};

/** The parts of a capcode row that ingest uses. */
type CapcodeRef = { id: number; capcode: string; agencyId: number; area: string | null };

/** The identity of a message's text for duplicate suppression: case and spacing do not matter. */
export function textHash(text: string): string {
  return createHash("sha256").update(text.toLowerCase().replace(/\s+/g, " ").trim()).digest("hex");
}

/** A 64-bit advisory-lock key from any string. */
function lockKey(s: string): string {
  return BigInt.asIntN(
    64,
    BigInt(`0x${createHash("sha256").update(s).digest("hex").slice(0, 16)}`),
  ).toString();
}

/**
 * Stores a batch of pager messages in one transaction: type and displayed text from the prefix,
 * capcode to agency (unknown capcodes created under UNMAPPED), duplicates suppressed (a retried id,
 * or the same text inside the window: a new capcode becomes another recipient of the same alert),
 * job-number groups, and the address. When this returns, every message is durable; the live channel
 * hears about new alerts after the commit. Results are in input order.
 */
export async function ingestMessages(
  ctx: ServiceContext,
  messages: IncomingMessage[],
): Promise<IngestResult[]> {
  if (messages.length === 0) return [];
  let grouping = groupingCache.get(ctx.db) ?? (await loadGrouping(ctx.db));
  groupingCache.set(ctx.db, grouping);
  let prepared = prepare(messages, grouping);

  const outcome = await ctx.db.transaction(async (tx) => {
    // Serialise concurrent batches that carry the same text, idempotency key or job number. The same
    // statement fingerprints the grouping settings and patterns the job numbers came from.
    const keys = lockKeys(prepared);
    const stamp = await lockAll(tx, keys, true);
    if (stamp !== grouping.stamp) {
      // An admin changed grouping since this process last looked: job numbers again, with the current
      // rules, and their locks (taken late, so a deadlock is possible and PostgreSQL would end one).
      const [settings, patterns] = await Promise.all([getGroupingSettings(tx), activePatterns(tx)]);
      grouping = { stamp: stamp!, settings, patterns };
      groupingCache.set(ctx.db, grouping);
      prepared = prepare(messages, grouping);
      const held = new Set(keys);
      const more = lockKeys(prepared).filter((k) => !held.has(k));
      if (more.length) await lockAll(tx, more, false);
    }
    const settings = grouping.settings;

    // After the locks, so it sees every batch that held them: one round trip for everything known.
    const known = await readKnown(tx, prepared, settings);
    const capcodeRows = await ensureCapcodes(
      tx,
      [...new Set(prepared.map((p) => p.capcode))],
      known.capcodes,
    );
    const byIdKey = known.byIdKey;
    const recent = known.recent;

    const results: (IngestResult | undefined)[] = new Array(prepared.length);
    const toCreate: { index: number; p: Prepared; capcode: CapcodeRef }[] = [];
    const extraRecipients: { index: number; hash: string; capcode: CapcodeRef }[] = [];
    const repeats: { index: number; first: number }[] = [];
    const firstIndexByKey = new Map<string, number>();
    const creatingHashes = new Set<string>();

    prepared.forEach((p, index) => {
      const key = p.id ? `${p.source}\u0000${p.id}` : null;
      if (key) {
        const storedId = byIdKey.get(key);
        if (storedId !== undefined) {
          results[index] = { id: storedId, status: "duplicate" };
          return;
        }
        const first = firstIndexByKey.get(key);
        if (first !== undefined) {
          repeats.push({ index, first });
          return;
        }
        firstIndexByKey.set(key, index);
      }
      const capcode = capcodeRows.get(p.capcode)!;
      if (recent.has(p.hash) || creatingHashes.has(p.hash)) {
        extraRecipients.push({ index, hash: p.hash, capcode });
      } else {
        creatingHashes.add(p.hash);
        toCreate.push({ index, p, capcode });
      }
    });

    const created = await insertAlerts(tx, toCreate, known.groups);
    for (const { index, alert } of created) results[index] = { id: alert.id, status: "created" };

    const alertIdByHash = new Map<string, number>(recent);
    for (const { alert } of created) alertIdByHash.set(alert.dedupeHash, alert.id);

    // The new alerts' own recipients went in with them; copies paged to more capcodes join here.
    const extraRows = extraRecipients.map(({ hash, capcode }) => ({
      alert_id: alertIdByHash.get(hash)!,
      capcode_id: capcode.id,
      agency_id: capcode.agencyId,
    }));
    const added = [
      ...created.map(({ alert, capcode }) => ({
        alertId: alert.id,
        agencyId: capcode.agencyId,
        capcodeId: capcode.id,
      })),
      ...(extraRows.length
        ? await tx
            .insert(alertRecipients)
            .select(
              sql`SELECT r.alert_id, r.capcode_id, r.agency_id
                    FROM json_to_recordset(${JSON.stringify(extraRows)}::json)
                      AS r(alert_id bigint, capcode_id integer, agency_id integer)`,
            )
            .onConflictDoNothing()
            .returning({
              alertId: alertRecipients.alertId,
              agencyId: alertRecipients.agencyId,
              capcodeId: alertRecipients.capcodeId,
            })
        : []),
    ];
    // A recipient row new to the database makes its message "merged" (once); any other copy is a duplicate.
    const addedKeys = new Set(added.map((r) => `${r.alertId}:${r.capcodeId}`));
    const claimed = new Set(created.map(({ alert, capcode }) => `${alert.id}:${capcode.id}`));
    for (const { index, hash, capcode } of extraRecipients) {
      const alertId = alertIdByHash.get(hash)!;
      const key = `${alertId}:${capcode.id}`;
      const merged = addedKeys.has(key) && !claimed.has(key);
      claimed.add(key);
      results[index] = { id: alertId, status: merged ? "merged" : "duplicate" };
    }
    // A retried id inside this batch points at the result of its first occurrence.
    for (const { index, first } of repeats) results[index] = { id: results[first]!.id, status: "duplicate" };

    return { results: results as IngestResult[], created, added };
  });

  publish(ctx, outcome.created, outcome.added);
  // The alerts are already queued for keyword rules (a trigger on alert_recipients); this wakes the matcher.
  matchRulesAfterCommit(ctx);
  return outcome.results;
}

type Grouping = { stamp: string; settings: GroupingSettings; patterns: CompiledPattern[] };

/**
 * The grouping settings and patterns this process last read, per database, with a fingerprint of
 * the rows they came from. Every ingest compares the fingerprint in its lock statement (no extra
 * round trip) and reads them again when it changed, so a change applies to the next message, as
 * when they were read on every ingest.
 */
const groupingCache = new WeakMap<Database, Grouping>();

/** A fingerprint of every row getGroupingSettings and activePatterns read. */
const GROUPING_STAMP = sql`(SELECT md5(coalesce(string_agg(${groupingSettings.key} || '=' || ${groupingSettings.value}, ',' ORDER BY ${groupingSettings.key}), '')) FROM ${groupingSettings})
  || (SELECT md5(coalesce(string_agg(${groupingPatterns.id} || ':' || ${groupingPatterns.priority} || ':' || ${groupingPatterns.isActive} || ':' || ${groupingPatterns.name} || ':' || ${groupingPatterns.pattern}, ',' ORDER BY ${groupingPatterns.id}), '')) FROM ${groupingPatterns})`;

async function loadGrouping(db: Database): Promise<Grouping> {
  // The fingerprint first: rows changed after it make the next ingest read them again.
  const result = await db.execute(sql`SELECT ${GROUPING_STAMP} AS stamp`);
  const stamp = String((result as unknown as { rows: { stamp: string }[] }).rows[0]!.stamp);
  const [settings, patterns] = await Promise.all([getGroupingSettings(db), activePatterns(db)]);
  return { stamp, settings, patterns };
}

function prepare(messages: IncomingMessage[], { settings, patterns }: Grouping): Prepared[] {
  return messages.map((m) => {
    const type = detectMessageType(m.message);
    const text = displayText(m.message);
    const grouping = settings.grouping_enabled ? jobNumberFor(text, type, patterns) : { jobNumber: null };
    return { ...m, type, text, hash: textHash(text), jobNumber: grouping.jobNumber };
  });
}

function lockKeys(prepared: Prepared[]): string[] {
  return [
    ...new Set([
      ...prepared.map((p) => lockKey(`text:${p.hash}`)),
      ...prepared.filter((p) => p.id).map((p) => lockKey(`id:${p.source}:${p.id}`)),
      ...prepared.filter((p) => p.jobNumber).map((p) => lockKey(`job:${p.jobNumber}`)),
    ]),
  ].sort();
}

/** Takes the advisory locks in key order; with `stamp`, returns the grouping fingerprint too. */
async function lockAll(tx: Database, keys: string[], stamp: boolean): Promise<string | null> {
  const result = await tx.execute(
    sql`SELECT count(pg_advisory_xact_lock(k)) AS n${stamp ? sql`, ${GROUPING_STAMP} AS stamp` : sql``}
          FROM (SELECT unnest(${`{${keys.join(",")}}`}::bigint[]) AS k ORDER BY 1) s`,
  );
  return stamp ? String((result as unknown as { rows: { stamp: string }[] }).rows[0]!.stamp) : null;
}

function publish(
  ctx: ServiceContext,
  created: { alert: AlertRow }[],
  added: { alertId: number; agencyId: number }[],
): void {
  const agenciesByAlert = new Map<number, number[]>();
  for (const r of added)
    agenciesByAlert.set(r.alertId, [...(agenciesByAlert.get(r.alertId) ?? []), r.agencyId]);
  const createdIds = new Set(created.map((c) => c.alert.id));
  const items = created.map(({ alert }) => ({
    alert,
    agencyIds: agenciesByAlert.get(alert.id) ?? [],
    isNew: true,
  }));
  // Only agencies that did not already have a merged alert need to hear about it now.
  const mergedIds = [...agenciesByAlert.keys()].filter((id) => !createdIds.has(id));
  if (mergedIds.length === 0) {
    if (items.length) ctx.live.alertsCommitted(items);
    return;
  }
  void ctx.db
    .select()
    .from(alerts)
    .where(inArray(alerts.id, mergedIds))
    .then((rows) => {
      ctx.live.alertsCommitted([
        ...items,
        ...rows.map((alert) => ({ alert, agencyIds: agenciesByAlert.get(alert.id) ?? [], isNew: false })),
      ]);
    })
    .catch((err: unknown) => ctx.logger.error({ err }, "ingest: could not publish merged alerts"));
}

/** What the database already holds for a batch, read in one statement (JSON per kind). */
type Known = {
  /** `${source}\u0000${id}` of a stored idempotency key -> its alert. */
  byIdKey: Map<string, number>;
  capcodes: Map<string, CapcodeRef>;
  /** Text hash -> the newest alert with that text inside the duplicate window. */
  recent: Map<string, number>;
  /** Job number -> the newest group of that job inside the grouping window. */
  groups: Map<string, number>;
};

const EMPTY_JSON = sql`'[]'::json`;

function jsonValue<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

async function readKnown(
  tx: Database,
  prepared: Prepared[],
  settings: { duplicate_window_seconds: number; group_window_hours: number },
): Promise<Known> {
  const ids = [...new Set(prepared.filter((p) => p.id).map((p) => p.id!))];
  const codes = [...new Set(prepared.map((p) => p.capcode))];
  const hashes = [...new Set(prepared.map((p) => p.hash))];
  const jobs = [...new Set(prepared.map((p) => p.jobNumber).filter((j): j is string => j !== null))];
  const dedupeSince = new Date(Date.now() - settings.duplicate_window_seconds * 1000);
  const groupSince = new Date(Date.now() - settings.group_window_hours * 3_600_000);
  const result = await tx.execute(sql`SELECT
    ${
      ids.length
        ? sql`(SELECT coalesce(json_agg(json_build_object('id', ${alerts.id}, 'source', ${alerts.source}, 'key', ${alerts.sourceMessageId})), '[]'::json)
                 FROM ${alerts} WHERE ${inArray(alerts.sourceMessageId, ids)})`
        : EMPTY_JSON
    } AS by_id,
    (SELECT coalesce(json_agg(json_build_object('id', ${capcodes.id}, 'capcode', ${capcodes.capcode}, 'agencyId', ${capcodes.agencyId}, 'area', ${capcodes.area})), '[]'::json)
       FROM ${capcodes} WHERE ${inArray(capcodes.capcode, codes)}) AS capcodes,
    ${
      settings.duplicate_window_seconds > 0
        ? sql`(SELECT coalesce(json_agg(json_build_object('id', ${alerts.id}, 'hash', ${alerts.dedupeHash})), '[]'::json)
                 FROM ${alerts} WHERE ${and(inArray(alerts.dedupeHash, hashes), gt(alerts.createdAt, dedupeSince))})`
        : EMPTY_JSON
    } AS recent,
    ${
      jobs.length
        ? sql`(SELECT coalesce(json_agg(json_build_object('id', ${alertGroups.id}, 'job', ${alertGroups.jobNumber})), '[]'::json)
                 FROM ${alertGroups} WHERE ${and(inArray(alertGroups.jobNumber, jobs), gt(alertGroups.lastAlertAt, groupSince))})`
        : EMPTY_JSON
    } AS groups`);
  const row = (result as unknown as { rows: Record<string, unknown>[] }).rows[0]!;
  const known: Known = { byIdKey: new Map(), capcodes: new Map(), recent: new Map(), groups: new Map() };
  for (const r of jsonValue<{ id: number; source: string; key: string }[]>(row.by_id)) {
    known.byIdKey.set(`${r.source}\u0000${r.key}`, Number(r.id));
  }
  for (const c of jsonValue<CapcodeRef[]>(row.capcodes)) known.capcodes.set(c.capcode, c);
  for (const r of jsonValue<{ id: number; hash: string }[]>(row.recent)) {
    const seen = known.recent.get(r.hash);
    if (seen === undefined || Number(r.id) > seen) known.recent.set(r.hash, Number(r.id));
  }
  for (const g of jsonValue<{ id: number; job: string }[]>(row.groups)) {
    const seen = known.groups.get(g.job);
    if (seen === undefined || g.id > seen) known.groups.set(g.job, g.id);
  }
  return known;
}

/** Capcode rows for every capcode, creating unknown ones under the UNMAPPED placeholder. */
async function ensureCapcodes(
  tx: Database,
  codes: string[],
  found: Map<string, CapcodeRef>,
): Promise<Map<string, CapcodeRef>> {
  const map = new Map(found);
  const missing = codes.filter((c) => !map.has(c));
  if (missing.length) {
    const [unmapped] = await tx.select().from(agencies).where(eq(agencies.code, UNMAPPED_AGENCY.code));
    const unmappedId =
      unmapped?.id ??
      (
        await tx
          .insert(agencies)
          .values({ ...UNMAPPED_AGENCY })
          .onConflictDoUpdate({ target: agencies.code, set: { updatedAt: new Date() } })
          .returning()
      )[0]!.id;
    await tx
      .insert(capcodes)
      .values(missing.map((capcode) => ({ capcode, agencyId: unmappedId })))
      .onConflictDoNothing({ target: capcodes.capcode });
    const now = await tx
      .select({
        id: capcodes.id,
        capcode: capcodes.capcode,
        agencyId: capcodes.agencyId,
        area: capcodes.area,
      })
      .from(capcodes)
      .where(inArray(capcodes.capcode, missing));
    for (const c of now) map.set(c.capcode, c);
  }
  return map;
}

/**
 * Inserts the new alerts, their job groups and their recipients in one statement (one round trip):
 * groups (existing ones counted on, new ones created), ids from the sequence in input order and the
 * recipient rows are data-modifying CTEs; the alerts come from a JSON recordset. Foreign keys and the
 * rule-matching trigger are checked at the end of the statement, when the alerts exist.
 */
async function insertAlerts(
  tx: Database,
  items: { index: number; p: Prepared; capcode: CapcodeRef }[],
  existingGroups: Map<string, number>,
): Promise<{ index: number; alert: AlertRow; capcode: CapcodeRef }[]> {
  if (items.length === 0) return [];
  // A job seen again inside the window joins its group; one seen first (or after the window) starts one.
  const jobs = new Map<string, { count: number; emergency: boolean; agencyId: number }>();
  for (const { p, capcode } of items) {
    if (!p.jobNumber) continue;
    const j = jobs.get(p.jobNumber);
    const emergency = p.type === "emergency";
    if (j) {
      j.count += 1;
      j.emergency ||= emergency;
    } else {
      jobs.set(p.jobNumber, { count: 1, emergency, agencyId: capcode.agencyId });
    }
  }
  const updates = [...jobs]
    .filter(([job]) => existingGroups.has(job))
    .map(([job, j]) => ({ id: existingGroups.get(job)!, count: j.count, emergency: j.emergency }));
  const fresh = [...jobs]
    .filter(([job]) => !existingGroups.has(job))
    .map(([job, j]) => ({ job_number: job, agency_id: j.agencyId, emergency: j.emergency, count: j.count }));
  const withs = [];
  if (updates.length) {
    withs.push(
      tx.$with("updated_groups", {}).as(
        sql`UPDATE ${alertGroups}
               SET message_count = ${alertGroups.messageCount} + u.count,
                   has_emergency = ${alertGroups.hasEmergency} OR u.emergency,
                   last_alert_at = greatest(${alertGroups.lastAlertAt}, now())
              FROM json_to_recordset(${JSON.stringify(updates)}::json) AS u(id integer, count integer, emergency boolean)
             WHERE ${alertGroups.id} = u.id
         RETURNING ${alertGroups.id}`,
      ),
    );
  }
  if (fresh.length) {
    const now = new Date();
    withs.push(
      tx.$with("fresh_groups", {}).as(
        sql`INSERT INTO ${alertGroups} (job_number, agency_id, has_emergency, message_count, first_alert_at, last_alert_at)
            SELECT f.job_number, f.agency_id, f.emergency, f.count, ${now}, ${now}
              FROM json_to_recordset(${JSON.stringify(fresh)}::json)
                AS f(job_number text, agency_id integer, emergency boolean, count integer)
         RETURNING id, job_number`,
      ),
    );
  }
  const values = items.map(({ p, capcode }, ord) => {
    const address = extractAddress(p.text);
    return {
      ord,
      type: p.type,
      raw_message: p.message,
      message: p.text,
      capcode: p.capcode,
      capcode_id: capcode.id,
      agency_id: capcode.agencyId,
      area: capcode.area,
      job_number: p.jobNumber,
      group_id: p.jobNumber ? (existingGroups.get(p.jobNumber) ?? null) : null,
      primary_address: address.primary_address,
      has_mappable_address: address.has_mappable_address,
      directions_url: address.directions_url,
      latitude: address.latitude === null ? null : String(address.latitude),
      longitude: address.longitude === null ? null : String(address.longitude),
      source: p.source,
      source_message_id: p.id,
      dedupe_hash: p.hash,
      sent_at: p.sentAt.toISOString(),
    };
  });
  withs.push(
    tx.$with("new_ids", {}).as(
      sql`SELECT nextval(pg_get_serial_sequence('alerts', 'id')) AS id, ord
            FROM generate_series(0, ${items.length - 1}::integer) AS ord ORDER BY ord`,
    ),
  );
  const recipients = items.map(({ capcode }, ord) => ({
    ord,
    capcode_id: capcode.id,
    agency_id: capcode.agencyId,
  }));
  withs.push(
    tx.$with("new_recipients", {}).as(
      sql`INSERT INTO ${alertRecipients} (alert_id, capcode_id, agency_id)
          SELECT i.id, r.capcode_id, r.agency_id
            FROM json_to_recordset(${JSON.stringify(recipients)}::json) AS r(ord integer, capcode_id integer, agency_id integer)
            JOIN new_ids i ON i.ord = r.ord`,
    ),
  );
  const freshGroupId = fresh.length
    ? sql`(SELECT fg.id FROM fresh_groups fg WHERE fg.job_number = t.job_number)`
    : sql`NULL::integer`;
  // Columns in the table's order (drizzle inserts every column it knows).
  const rows = await tx
    .with(...withs)
    .insert(alerts)
    .select(
      sql`SELECT i.id, t.type, t.raw_message, t.message, t.capcode,
                 t.capcode_id, t.agency_id, t.area, t.job_number, coalesce(t.group_id, ${freshGroupId}),
                 t.primary_address, t.has_mappable_address, t.directions_url, t.latitude, t.longitude,
                 t.source, t.source_message_id, t.dedupe_hash, t.sent_at, now()
            FROM json_to_recordset(${JSON.stringify(values)}::json) AS t(
                   ord integer, type text, raw_message text, message text, capcode text, capcode_id integer,
                   agency_id integer, area text, job_number text, group_id integer, primary_address text,
                   has_mappable_address boolean, directions_url text, latitude text, longitude text,
                   source text, source_message_id text, dedupe_hash text, sent_at timestamptz)
            JOIN new_ids i ON i.ord = t.ord
           ORDER BY t.ord`,
    )
    .returning();
  // A batch creates at most one alert per text, so the text hash names each new row.
  const byHash = new Map(rows.map((r) => [r.dedupeHash, r]));
  return items.map((item) => ({ index: item.index, capcode: item.capcode, alert: byHash.get(item.p.hash)! }));
}
