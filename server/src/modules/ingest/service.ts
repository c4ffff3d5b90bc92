import { createHash } from "node:crypto";
import {
  type AlertType,
  displayText,
  extractAddress,
  isMachinePage,
  pagerTime,
  pageType,
  storablePagerText,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { isConnectionFailure } from "../../db/reachability.js";
import { jsonValue, rowFromJson } from "../../db/rows.js";
import { alerts } from "../../db/schema.js";
import type { AlertRow } from "../../shared/alerts/present.js";
import {
  activePatterns,
  type CompiledPattern,
  type GroupingSettings,
  getGroupingSettings,
  jobNumberFor,
} from "../../shared/grouping.js";
import { addressLocalities } from "../../shared/localities/address-localities.js";

/** One decoded pager message as a receiver sends it. */
export type IncomingMessage = {
  capcode: string;
  message: string;
  /** The receiver's time for it, if it gave one; stored only when sane (domain pagerTime). */
  sentAt: Date | null;
  source: string;
  /** The sender's idempotency key: a retried message with the same source and id is stored once. */
  id: string | null;
  /** The receiver that delivered it (issue 33): the alert records that this receiver heard it. */
  receiverId?: number | null;
};

export type IngestStatus = "created" | "merged" | "duplicate";
export type IngestResult = { id: number; status: IngestStatus };

type Received = IncomingMessage & {
  /** When this process got it: the alert's time when the receiver gave none (domain pagerTime). */
  receivedAt: Date;
};

type Prepared = Received & {
  type: AlertType;
  isMachine: boolean;
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
 * are in input order. Calls made while others are being written share the next write (WriteQueue).
 */
export async function ingestMessages(
  ctx: ServiceContext,
  messages: IncomingMessage[],
): Promise<IngestResult[]> {
  if (messages.length === 0) return [];
  const receivedAt = new Date();
  let queue = writeQueues.get(ctx);
  if (!queue) {
    queue = new WriteQueue(ctx);
    writeQueues.set(ctx, queue);
  }
  return queue.submit(messages.map((m) => ({ ...m, receivedAt })));
}

/** Writes in flight at once per process; later callers wait and go together in the next write. */
const WRITES_IN_FLIGHT = 2;
/** The most messages one write takes from waiting callers (one caller's batch is never split). */
const MAX_MESSAGES_PER_WRITE = 1000;

type Waiting = {
  messages: Received[];
  resolve: (results: IngestResult[]) => void;
  reject: (error: unknown) => void;
};

const writeQueues = new WeakMap<ServiceContext, WriteQueue>();

/**
 * Group commit. With WRITES_IN_FLIGHT writes under way, callers that arrive wait, and the next free
 * write takes all of them in one `ingest_messages` call (one transaction, one commit); each caller
 * gets its own results. A lone receiver never waits; ten posting at once share commits instead of
 * queueing for them one by one. When a shared write fails, each caller's messages are written again
 * on their own, so one sender's bad message fails that sender only.
 */
class WriteQueue {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly ctx: ServiceContext) {}

  submit(messages: Received[]): Promise<IngestResult[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ messages, resolve, reject });
      if (this.inFlight < WRITES_IN_FLIGHT) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight += 1;
    try {
      while (this.waiting.length > 0) await this.write(this.takeGroup());
    } finally {
      this.inFlight -= 1;
    }
  }

  private takeGroup(): Waiting[] {
    let count = 0;
    let taken = 0;
    while (taken < this.waiting.length) {
      const next = this.waiting[taken]!.messages.length;
      if (taken > 0 && count + next > MAX_MESSAGES_PER_WRITE) break;
      count += next;
      taken += 1;
    }
    return this.waiting.splice(0, taken);
  }

  private async write(group: Waiting[]): Promise<void> {
    try {
      const results = await storeMessages(
        this.ctx,
        group.flatMap((w) => w.messages),
      );
      let at = 0;
      for (const w of group) {
        w.resolve(results.slice(at, at + w.messages.length));
        at += w.messages.length;
      }
    } catch (error) {
      if (group.length === 1 || isConnectionFailure(error)) {
        for (const w of group) w.reject(error);
        return;
      }
      for (const w of group) await storeMessages(this.ctx, w.messages).then(w.resolve, w.reject);
    }
  }
}

/** One write: the messages in one `ingest_messages` call, with the current grouping settings. */
async function storeMessages(ctx: ServiceContext, messages: Received[]): Promise<IngestResult[]> {
  for (let attempt = 1; ; attempt++) {
    const grouping = groupingCache.get(ctx.db) ?? (await loadGrouping(ctx.db));
    groupingCache.set(ctx.db, grouping);
    const outcome = await storeBatch(ctx.db, prepare(messages, grouping), grouping);
    if (outcome) {
      // After the caller has sent its reply (the receiver waits for that, nobody waits for these): the
      // live event, and pagesStored (the rule matchers' nudge: the alerts are already queued for keyword
      // rules by a trigger on alert_recipients).
      setImmediate(() => {
        // alertsCreated first (the map stores the new jobs' positions), so a map hearing the live
        // event finds them.
        ctx.events
          .publish("alertsCreated", { alerts: outcome.created })
          .catch((err: unknown) => ctx.logger.error({ err }, "ingest: an alertsCreated handler failed"))
          .finally(() => publish(ctx, outcome.created, outcome.added));
        ctx.events
          .publish("pagesStored", {
            createdAlertIds: outcome.created.map((a) => a.id),
            addedToAlertIds: outcome.added.map((a) => a.alertId),
          })
          .catch((err: unknown) => ctx.logger.error({ err }, "ingest: a pagesStored handler failed"));
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
  added: { alertId: number; agencyId: number; capcodeId: number }[];
};

/** One call of `ingest_messages`; null when the grouping settings it was prepared with are out of date. */
async function storeBatch(db: Database, prepared: Prepared[], grouping: Grouping): Promise<Stored | null> {
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
        sent_at: pagerTime(p.sentAt, p.receivedAt).toISOString(),
        is_machine: p.isMachine,
        receiver_id: p.receiverId ?? null,
      };
    }),
  };
  // In the same statement (so in the same transaction): which receiver heard each message's alert
  // (issue 33). Results are in input order, so the n-th result is the n-th message's alert.
  const result = await db.execute(sql`
    WITH b AS (SELECT ${JSON.stringify(batch)}::jsonb AS batch),
    o AS (SELECT ingest_messages(b.batch) AS out FROM b),
    heard AS (
      INSERT INTO alert_receivers AS ar (alert_id, receiver_id, messages)
      SELECT (r.value->>'id')::bigint, (m.value->>'receiver_id')::int, count(*)
      FROM o, b,
        jsonb_array_elements(o.out->'results') WITH ORDINALITY AS r(value, i),
        jsonb_array_elements(b.batch->'messages') WITH ORDINALITY AS m(value, j)
      WHERE r.i = m.j AND NOT (o.out ? 'stale') AND jsonb_typeof(m.value->'receiver_id') = 'number'
      GROUP BY 1, 2
      ON CONFLICT (alert_id, receiver_id) DO UPDATE
        SET last_heard_at = now(), messages = ar.messages + excluded.messages
    )
    SELECT out FROM o`);
  const out = jsonValue<{
    stale?: true;
    results: IngestResult[];
    created: Record<string, unknown>[];
    added: { alert_id: number; agency_id: number; capcode_id: number }[];
  }>((result as unknown as { rows: { out: unknown }[] }).rows[0]!.out);
  if (out.stale) return null;
  return {
    results: out.results,
    created: out.created.map((row) => rowFromJson(alerts, row)),
    added: out.added.map((r) => ({ alertId: r.alert_id, agencyId: r.agency_id, capcodeId: r.capcode_id })),
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

function prepare(messages: Received[], { settings, patterns }: Grouping): Prepared[] {
  return messages.map((received) => {
    // The routes already did this; any other caller must not fail the whole batch on a NUL either.
    const m = {
      ...received,
      message: storablePagerText(received.message),
      source: storablePagerText(received.source),
      id: received.id === null ? null : storablePagerText(received.id),
    };
    // A machine or test page is administrative whatever its prefix, so it is never grouped either.
    const type = pageType(m.message);
    const text = displayText(m.message);
    const grouping = settings.grouping_enabled ? jobNumberFor(text, type, patterns) : { jobNumber: null };
    return {
      ...m,
      type,
      isMachine: isMachinePage(m.message),
      text,
      hash: textHash(text),
      jobNumber: grouping.jobNumber,
    };
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
  added: { alertId: number; agencyId: number; capcodeId: number }[],
): void {
  const byAlert = new Map<number, { agencyIds: number[]; capcodeIds: number[] }>();
  for (const r of added) {
    const entry = byAlert.get(r.alertId) ?? { agencyIds: [], capcodeIds: [] };
    entry.agencyIds.push(r.agencyId);
    entry.capcodeIds.push(r.capcodeId);
    byAlert.set(r.alertId, entry);
  }
  const recipients = (alertId: number) => byAlert.get(alertId) ?? { agencyIds: [], capcodeIds: [] };
  const createdIds = new Set(created.map((alert) => alert.id));
  const items = created.map((alert) => ({ alert, ...recipients(alert.id), isNew: true }));
  // Only agencies and units that did not already have a merged alert need to hear about it now.
  const mergedIds = [...byAlert.keys()].filter((id) => !createdIds.has(id));
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
        ...rows.map((alert) => ({ alert, ...recipients(alert.id), isNew: false })),
      ]);
    })
    .catch((err: unknown) => ctx.logger.error({ err }, "ingest: could not publish merged alerts"));
}
