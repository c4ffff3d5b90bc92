import { createHash } from "node:crypto";
import {
  type AlertType,
  detectMessageType,
  displayText,
  extractAddress,
  pagerTime,
  storablePagerText,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { rowFromJson } from "../../db/rows.js";
import { alerts } from "../../db/schema.js";
import type { AlertRow } from "../alerts/present.js";
import {
  activePatterns,
  type CompiledPattern,
  type GroupingSettings,
  getGroupingSettings,
  jobNumberFor,
} from "../grouping/service.js";
import { addressLocalities } from "../postcodes/address-localities.js";
import { matchRulesAfterCommit } from "../rules/matcher.js";

/** One decoded pager message as a receiver sends it. */
export type IncomingMessage = {
  capcode: string;
  message: string;
  /** The receiver's time for it, if it gave one; stored only when sane (domain pagerTime). */
  sentAt: Date | null;
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
 * Stores a batch of pager messages in one round trip to the database (the `ingest_messages` function,
 * migration 0007, in its own transaction): type and displayed text from the prefix, capcode to agency
 * (unknown capcodes created under UNMAPPED), duplicates suppressed (a retried id, or the same text
 * inside the window: a new capcode becomes another recipient of the same alert), job-number groups,
 * and the address; text, source and id made storable (`storablePagerText`). An alert's time (sent_at,
 * the one shown) is the receiver's when sane, else the receipt time (domain pagerTime). When this
 * returns, every message is durable; the live channel hears about new alerts after the commit. Results
 * are in input order.
 */
export async function ingestMessages(
  ctx: ServiceContext,
  messages: IncomingMessage[],
): Promise<IngestResult[]> {
  if (messages.length === 0) return [];
  for (let attempt = 1; ; attempt++) {
    const grouping = groupingCache.get(ctx.db) ?? (await loadGrouping(ctx.db));
    groupingCache.set(ctx.db, grouping);
    const outcome = await storeBatch(ctx.db, prepare(messages, grouping), grouping, new Date());
    if (outcome) {
      // After the caller has sent its reply (the receiver waits for that, nobody waits for these): the
      // live event, and a nudge to the matcher (the alerts are already queued for keyword rules by a
      // trigger on alert_recipients).
      setImmediate(() => {
        publish(ctx, outcome.created, outcome.added);
        matchRulesAfterCommit(ctx);
      });
      return outcome.results;
    }
    // An admin changed grouping since this process last looked: job numbers again, with the current rules.
    groupingCache.delete(ctx.db);
    if (attempt >= MAX_STALE_ATTEMPTS) {
      throw new Error(`ingest: grouping settings changed under ${attempt} attempts in a row`);
    }
  }
}

/** Calls in a row that may find the grouping settings changed before ingest gives up (each re-reads them). */
const MAX_STALE_ATTEMPTS = 5;

type Stored = {
  results: IngestResult[];
  created: AlertRow[];
  added: { alertId: number; agencyId: number }[];
};

/** One call of `ingest_messages`; null when the grouping settings it was prepared with are out of date. */
async function storeBatch(
  db: Database,
  prepared: Prepared[],
  grouping: Grouping,
  receivedAt: Date,
): Promise<Stored | null> {
  const batch = {
    stamp: grouping.stamp,
    locks: lockKeys(prepared),
    dedupe_seconds: grouping.settings.duplicate_window_seconds,
    group_hours: grouping.settings.group_window_hours,
    unmapped: UNMAPPED_AGENCY,
    messages: prepared.map((p) => {
      const address = extractAddress(p.text, addressLocalities());
      return {
        capcode: p.capcode,
        source: p.source,
        id: p.id,
        type: p.type,
        raw_message: p.message,
        message: p.text,
        hash: p.hash,
        job_number: p.jobNumber,
        primary_address: address.primary_address,
        has_mappable_address: address.has_mappable_address,
        directions_url: address.directions_url,
        latitude: address.latitude === null ? null : String(address.latitude),
        longitude: address.longitude === null ? null : String(address.longitude),
        // The time shown and ordered at; created_at keeps the receipt time.
        sent_at: pagerTime(p.sentAt, receivedAt).toISOString(),
      };
    }),
  };
  const result = await db.execute(sql`SELECT ingest_messages(${JSON.stringify(batch)}::jsonb) AS out`);
  const out = jsonValue<{
    stale?: true;
    results: IngestResult[];
    created: Record<string, unknown>[];
    added: { alert_id: number; agency_id: number }[];
  }>((result as unknown as { rows: { out: unknown }[] }).rows[0]!.out);
  if (out.stale) return null;
  return {
    results: out.results,
    created: out.created.map((row) => rowFromJson(alerts, row)),
    added: out.added.map((r) => ({ alertId: r.alert_id, agencyId: r.agency_id })),
  };
}

type Grouping = { stamp: string; settings: GroupingSettings; patterns: CompiledPattern[] };

/**
 * The grouping settings and patterns this process last read, per database, with their version
 * (`ingest_grouping_stamp()`: a counter that every change to either table bumps). `ingest_messages`
 * compares the version after taking its locks and stores nothing when it changed; ingest then reads
 * them again and retries, so a change applies to the next message, as when they were read on every
 * ingest.
 */
const groupingCache = new WeakMap<Database, Grouping>();

async function loadGrouping(db: Database): Promise<Grouping> {
  // The version first: rows changed after it make the next ingest read them again.
  const result = await db.execute(sql`SELECT ingest_grouping_stamp() AS stamp`);
  const stamp = String((result as unknown as { rows: { stamp: string }[] }).rows[0]!.stamp);
  const [settings, patterns] = await Promise.all([getGroupingSettings(db), activePatterns(db)]);
  return { stamp, settings, patterns };
}

function prepare(messages: IncomingMessage[], { settings, patterns }: Grouping): Prepared[] {
  return messages.map((received) => {
    // The routes already did this; any other caller must not fail the whole batch on a NUL either.
    const m = {
      ...received,
      message: storablePagerText(received.message),
      source: storablePagerText(received.source),
      id: received.id === null ? null : storablePagerText(received.id),
    };
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

function publish(
  ctx: ServiceContext,
  created: AlertRow[],
  added: { alertId: number; agencyId: number }[],
): void {
  const agenciesByAlert = new Map<number, number[]>();
  for (const r of added)
    agenciesByAlert.set(r.alertId, [...(agenciesByAlert.get(r.alertId) ?? []), r.agencyId]);
  const createdIds = new Set(created.map((alert) => alert.id));
  const items = created.map((alert) => ({
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

function jsonValue<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}
