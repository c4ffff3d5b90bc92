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
import { agencies, alertGroups, alertRecipients, alerts, capcodes } from "../../db/schema.js";
import type { AlertRow } from "../alerts/present.js";
import { activePatterns, getGroupingSettings, jobNumberFor } from "../grouping/service.js";
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

type CapcodeRow = typeof capcodes.$inferSelect;

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
  const [settings, patterns] = await Promise.all([getGroupingSettings(ctx.db), activePatterns(ctx.db)]);
  const prepared: Prepared[] = messages.map((m) => {
    const type = detectMessageType(m.message);
    const text = displayText(m.message);
    const grouping = settings.grouping_enabled ? jobNumberFor(text, type, patterns) : { jobNumber: null };
    return { ...m, type, text, hash: textHash(text), jobNumber: grouping.jobNumber };
  });

  const outcome = await ctx.db.transaction(async (tx) => {
    // Serialise concurrent batches that carry the same text or the same idempotency key.
    const keys = [
      ...new Set([
        ...prepared.map((p) => lockKey(`text:${p.hash}`)),
        ...prepared.filter((p) => p.id).map((p) => lockKey(`id:${p.source}:${p.id}`)),
        ...prepared.filter((p) => p.jobNumber).map((p) => lockKey(`job:${p.jobNumber}`)),
      ]),
    ].sort();
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(k) FROM (SELECT unnest(${`{${keys.join(",")}}`}::bigint[]) AS k ORDER BY 1) s`,
    );

    const byIdKey = await alertsByIdempotencyKey(tx, prepared);
    const capcodeRows = await ensureCapcodes(tx, [...new Set(prepared.map((p) => p.capcode))]);
    const recent = await recentAlertsByHash(tx, [...new Set(prepared.map((p) => p.hash))], settings);

    const results: (IngestResult | undefined)[] = new Array(prepared.length);
    const toCreate: { index: number; p: Prepared; capcode: CapcodeRow }[] = [];
    const extraRecipients: { index: number; hash: string; capcode: CapcodeRow }[] = [];
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

    const created = await insertAlerts(tx, toCreate, settings);
    for (const { index, alert } of created) results[index] = { id: alert.id, status: "created" };

    const alertIdByHash = new Map<string, number>([...recent].map(([h, a]) => [h, a.id]));
    for (const { alert } of created) alertIdByHash.set(alert.dedupeHash, alert.id);

    const recipientRows = [
      ...created.map(({ alert, capcode }) => ({
        alertId: alert.id,
        capcodeId: capcode.id,
        agencyId: capcode.agencyId,
      })),
      ...extraRecipients.map(({ hash, capcode }) => ({
        alertId: alertIdByHash.get(hash)!,
        capcodeId: capcode.id,
        agencyId: capcode.agencyId,
      })),
    ];
    const added = recipientRows.length
      ? await tx.insert(alertRecipients).values(recipientRows).onConflictDoNothing().returning({
          alertId: alertRecipients.alertId,
          agencyId: alertRecipients.agencyId,
          capcodeId: alertRecipients.capcodeId,
        })
      : [];
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

async function alertsByIdempotencyKey(tx: Database, prepared: Prepared[]): Promise<Map<string, number>> {
  const withId = prepared.filter((p) => p.id);
  const map = new Map<string, number>();
  if (withId.length === 0) return map;
  const rows = await tx
    .select({ id: alerts.id, source: alerts.source, key: alerts.sourceMessageId })
    .from(alerts)
    .where(inArray(alerts.sourceMessageId, [...new Set(withId.map((p) => p.id!))]));
  for (const r of rows) map.set(`${r.source}\u0000${r.key}`, r.id);
  return map;
}

/** Capcode rows for every capcode, creating unknown ones under the UNMAPPED placeholder. */
async function ensureCapcodes(tx: Database, codes: string[]): Promise<Map<string, CapcodeRow>> {
  const found = await tx.select().from(capcodes).where(inArray(capcodes.capcode, codes));
  const map = new Map(found.map((c) => [c.capcode, c]));
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
    const now = await tx.select().from(capcodes).where(inArray(capcodes.capcode, missing));
    for (const c of now) map.set(c.capcode, c);
  }
  return map;
}

async function recentAlertsByHash(
  tx: Database,
  hashes: string[],
  settings: { duplicate_window_seconds: number },
) {
  const map = new Map<string, AlertRow>();
  if (settings.duplicate_window_seconds <= 0) return map;
  const since = new Date(Date.now() - settings.duplicate_window_seconds * 1000);
  const rows = await tx
    .select()
    .from(alerts)
    .where(and(inArray(alerts.dedupeHash, hashes), gt(alerts.createdAt, since)));
  for (const r of rows) {
    const seen = map.get(r.dedupeHash);
    if (!seen || r.id > seen.id) map.set(r.dedupeHash, r);
  }
  return map;
}

/** Inserts the new alerts with their groups; ids are taken from the sequence first so results map exactly. */
async function insertAlerts(
  tx: Database,
  items: { index: number; p: Prepared; capcode: CapcodeRow }[],
  settings: { group_window_hours: number },
): Promise<{ index: number; alert: AlertRow; capcode: CapcodeRow }[]> {
  if (items.length === 0) return [];
  const groupIds = await assignGroups(tx, items, settings);
  const idRows = await tx.execute<{ id: string | number }>(
    sql`SELECT nextval(pg_get_serial_sequence('alerts', 'id')) AS id FROM generate_series(1, ${items.length})`,
  );
  const ids = (idRows as unknown as { rows: { id: string | number }[] }).rows.map((r) => Number(r.id));
  const values = items.map(({ p, capcode }, i) => {
    const address = extractAddress(p.text);
    return {
      id: ids[i]!,
      type: p.type,
      rawMessage: p.message,
      message: p.text,
      capcode: p.capcode,
      capcodeId: capcode.id,
      agencyId: capcode.agencyId,
      area: capcode.area,
      jobNumber: p.jobNumber,
      groupId: p.jobNumber ? (groupIds.get(p.jobNumber) ?? null) : null,
      primaryAddress: address.primary_address,
      hasMappableAddress: address.has_mappable_address,
      directionsUrl: address.directions_url,
      latitude: address.latitude === null ? null : String(address.latitude),
      longitude: address.longitude === null ? null : String(address.longitude),
      source: p.source,
      sourceMessageId: p.id,
      dedupeHash: p.hash,
      sentAt: p.sentAt,
    };
  });
  const rows = await tx.insert(alerts).values(values).returning();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return items.map((item, i) => ({ index: item.index, capcode: item.capcode, alert: byId.get(ids[i]!)! }));
}

/** Finds or creates the group of each job number (a job seen again after the window starts a new group). */
async function assignGroups(
  tx: Database,
  items: { p: Prepared; capcode: CapcodeRow }[],
  settings: { group_window_hours: number },
): Promise<Map<string, number>> {
  const jobs = new Map<
    string,
    { count: number; emergency: boolean; agencyId: number; first: Date; last: Date }
  >();
  for (const { p, capcode } of items) {
    if (!p.jobNumber) continue;
    const j = jobs.get(p.jobNumber);
    const emergency = p.type === "emergency";
    if (j) {
      j.count += 1;
      j.emergency ||= emergency;
      if (p.sentAt > j.last) j.last = p.sentAt;
    } else {
      jobs.set(p.jobNumber, {
        count: 1,
        emergency,
        agencyId: capcode.agencyId,
        first: p.sentAt,
        last: p.sentAt,
      });
    }
  }
  const ids = new Map<string, number>();
  if (jobs.size === 0) return ids;
  const since = new Date(Date.now() - settings.group_window_hours * 3_600_000);
  const existing = await tx
    .select()
    .from(alertGroups)
    .where(and(inArray(alertGroups.jobNumber, [...jobs.keys()]), gt(alertGroups.lastAlertAt, since)));
  for (const g of existing) {
    const known = ids.get(g.jobNumber);
    if (known === undefined || g.id > known) ids.set(g.jobNumber, g.id);
  }
  for (const [jobNumber, j] of jobs) {
    const id = ids.get(jobNumber);
    if (id !== undefined) {
      await tx
        .update(alertGroups)
        .set({
          messageCount: sql`${alertGroups.messageCount} + ${j.count}`,
          hasEmergency: sql`${alertGroups.hasEmergency} OR ${j.emergency}`,
          lastAlertAt: sql`greatest(${alertGroups.lastAlertAt}, now())`,
        })
        .where(eq(alertGroups.id, id));
    }
  }
  const fresh = [...jobs].filter(([jobNumber]) => !ids.has(jobNumber));
  if (fresh.length) {
    const now = new Date();
    const rows = await tx
      .insert(alertGroups)
      .values(
        fresh.map(([jobNumber, j]) => ({
          jobNumber,
          agencyId: j.agencyId,
          hasEmergency: j.emergency,
          messageCount: j.count,
          firstAlertAt: now,
          lastAlertAt: now,
        })),
      )
      .returning({ id: alertGroups.id, jobNumber: alertGroups.jobNumber });
    for (const r of rows) ids.set(r.jobNumber, r.id);
  }
  return ids;
}
