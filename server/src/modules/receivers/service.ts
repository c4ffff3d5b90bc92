import { type Heartbeat, type ReceiverState, receiverState, receiverTimingOf } from "@turnout/domain";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";
import { agencies, alertReceivers, alerts, receiverKeys, receivers } from "../../db/schema.js";
import { badRequest, notFound } from "../../errors.js";
import { expectedAgencies, listReceiverRows, type ReceiverRow } from "../../shared/receivers.js";
import { presentReceiverKey } from "./keys.js";

/**
 * Messages seen per receiver and process since the last write of its times: a receiver's last page
 * and last sign of life are written at most every TOUCH_EVERY_MS, not once per batch.
 */
const TOUCH_EVERY_MS = 2_000;
const lastTouch = new WeakMap<Database, Map<number, number>>();

/**
 * A receiver delivered pages: they count as a heartbeat (a PagerMon reader sends nothing else), and
 * are its last page. Written after the reply, at most every TOUCH_EVERY_MS per receiver and process;
 * a failure is logged, never the sender's problem.
 */
export function noteReceiverMessages(ctx: ServiceContext, receiverId: number | null, count: number): void {
  if (receiverId === null || count === 0) return;
  let touched = lastTouch.get(ctx.db);
  if (!touched) {
    touched = new Map();
    lastTouch.set(ctx.db, touched);
  }
  const now = Date.now();
  if (now - (touched.get(receiverId) ?? 0) < TOUCH_EVERY_MS) return;
  touched.set(receiverId, now);
  void ctx.db
    .update(receivers)
    .set({ lastSeenAt: sql`now()`, lastMessageAt: sql`now()` })
    .where(eq(receivers.id, receiverId))
    .catch((err: unknown) => ctx.logger.warn({ err, receiverId }, "receivers: could not note a page"));
}

/**
 * A heartbeat: the receiver's last sign of life and its reported status. Resolves to whether it ends
 * the state the checker last stored (not heard yet, late or down), which the admins' Receivers tab
 * then shows at once.
 */
export async function recordHeartbeat(ctx: ServiceContext, receiverId: number, beat: Heartbeat) {
  const [row] = await ctx.db
    .update(receivers)
    .set({
      lastSeenAt: sql`now()`,
      lastHeartbeatAt: sql`now()`,
      lastStatus: { ...beat, received_at: new Date().toISOString() },
    })
    .where(eq(receivers.id, receiverId))
    .returning({ state: receivers.state });
  return { endsSilence: row !== undefined && SILENT_STATES.has(row.state as ReceiverState) };
}

/** The stored states a sign of life ends at once. */
const SILENT_STATES = new Set<ReceiverState>(["unknown", "late", "down"]);

export type ReceiverInput = {
  name: string;
  location?: string | null;
  expected_capcodes?: string[];
  expected_agency_ids?: number[];
  heartbeat_interval_seconds?: number;
  down_after_seconds?: number;
  quiet_after_seconds?: number | null;
};

async function checkAgencies(db: Database, ids: number[] | undefined): Promise<void> {
  if (!ids || ids.length === 0) return;
  const found = await db.select({ id: agencies.id }).from(agencies).where(inArray(agencies.id, ids));
  const known = new Set(found.map((a) => a.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw badRequest(`Unknown agency ids: ${unknown.join(", ")}`);
}

function valuesOf(input: Partial<ReceiverInput>) {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.location !== undefined ? { location: input.location || null } : {}),
    ...(input.expected_capcodes !== undefined
      ? { expectedCapcodes: [...new Set(input.expected_capcodes)] }
      : {}),
    ...(input.expected_agency_ids !== undefined
      ? { expectedAgencyIds: [...new Set(input.expected_agency_ids)] }
      : {}),
    ...(input.heartbeat_interval_seconds !== undefined
      ? { heartbeatIntervalSeconds: input.heartbeat_interval_seconds }
      : {}),
    ...(input.down_after_seconds !== undefined ? { downAfterSeconds: input.down_after_seconds } : {}),
    ...(input.quiet_after_seconds !== undefined ? { quietAfterSeconds: input.quiet_after_seconds } : {}),
  };
}

export async function createReceiver(db: Database, input: ReceiverInput): Promise<ReceiverRow> {
  await checkAgencies(db, input.expected_agency_ids);
  const [row] = await db
    .insert(receivers)
    .values(valuesOf(input) as typeof receivers.$inferInsert)
    .returning();
  return row!;
}

export async function getReceiver(db: Database, id: number): Promise<ReceiverRow> {
  const [row] = await db
    .select()
    .from(receivers)
    .where(and(eq(receivers.id, id), isNull(receivers.deletedAt)));
  if (!row) throw notFound("Receiver not found");
  return row;
}

export async function updateReceiver(
  db: Database,
  id: number,
  input: Partial<ReceiverInput>,
): Promise<ReceiverRow> {
  await getReceiver(db, id);
  await checkAgencies(db, input.expected_agency_ids);
  const [row] = await db
    .update(receivers)
    .set({ ...valuesOf(input), updatedAt: new Date() })
    .where(eq(receivers.id, id))
    .returning();
  return row!;
}

/** Deletes a receiver: its keys stop working at once; the alerts it heard keep saying so. */
export async function deleteReceiver(db: Database, id: number): Promise<ReceiverRow> {
  const row = await getReceiver(db, id);
  await db.transaction(async (tx) => {
    await tx.update(receivers).set({ deletedAt: new Date() }).where(eq(receivers.id, id));
    await tx
      .update(receiverKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(receiverKeys.receiverId, id), isNull(receiverKeys.revokedAt)));
  });
  return row;
}

/** Hours in a sparkline of pages heard. */
export const SPARK_HOURS = 24;

/** Pages heard per hour over the last SPARK_HOURS hours, oldest first, for each receiver. */
async function pagesPerHour(db: Database): Promise<Map<number, number[]>> {
  const rows = rowsOf<{ receiver_id: number; hours_ago: number; pages: number }>(
    await db.execute(sql`
      SELECT receiver_id,
        floor(extract(epoch FROM now() - first_heard_at) / 3600)::int AS hours_ago,
        count(*)::int AS pages
      FROM alert_receivers
      WHERE first_heard_at > now() - make_interval(hours => ${SPARK_HOURS})
      GROUP BY 1, 2`),
  );
  const out = new Map<number, number[]>();
  for (const r of rows) {
    const series = out.get(r.receiver_id) ?? Array.from({ length: SPARK_HOURS }, () => 0);
    const at = SPARK_HOURS - 1 - r.hours_ago;
    if (at >= 0 && at < SPARK_HOURS) series[at] = r.pages;
    out.set(r.receiver_id, series);
  }
  return out;
}

/** The quiet period in force: the admin's, else the learned one, else none. */
export const quietPeriodOf = (r: ReceiverRow) => r.quietAfterSeconds ?? r.learnedQuietSeconds ?? null;

/** The state of a receiver now, from its stored times (domain receiverState). */
export function currentState(r: ReceiverRow, now = Date.now()): ReceiverState {
  return receiverState(receiverTimingOf(r, quietPeriodOf(r)), now);
}

/** Every receiver as the console shows it: state, times, last status, keys and pages per hour. */
export async function listReceivers(db: Database) {
  const rows = await listReceiverRows(db);
  const ids = rows.map((r) => r.id);
  const [keys, spark, agencyMap] = await Promise.all([
    ids.length
      ? db
          .select()
          .from(receiverKeys)
          .where(inArray(receiverKeys.receiverId, ids))
          .orderBy(desc(receiverKeys.createdAt), desc(receiverKeys.id))
      : Promise.resolve([]),
    pagesPerHour(db),
    expectedAgencies(db, rows),
  ]);
  return rows.map((r) =>
    presentReceiver(r, {
      keys: keys.filter((k) => k.receiverId === r.id),
      pagesPerHour: spark.get(r.id) ?? Array.from({ length: SPARK_HOURS }, () => 0),
      agencyIds: agencyMap.get(r.id) ?? [],
    }),
  );
}

export function presentReceiver(
  r: ReceiverRow,
  extra: {
    keys?: (typeof receiverKeys.$inferSelect)[];
    pagesPerHour?: number[];
    agencyIds?: number[];
  } = {},
) {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  const status = (r.lastStatus ?? {}) as Partial<Heartbeat> & { received_at?: string };
  return {
    id: r.id,
    name: r.name,
    location: r.location,
    kind: r.kind,
    expected_capcodes: r.expectedCapcodes,
    expected_agency_ids: r.expectedAgencyIds,
    agency_ids: extra.agencyIds ?? r.expectedAgencyIds,
    heartbeat_interval_seconds: r.heartbeatIntervalSeconds,
    down_after_seconds: r.downAfterSeconds,
    quiet_after_seconds: r.quietAfterSeconds,
    learned_quiet_seconds: r.learnedQuietSeconds,
    // The checker's state (what admins were told), and the state now from the stored times.
    state: r.state as ReceiverState,
    state_since: r.stateSince.toISOString(),
    current_state: currentState(r),
    last_seen_at: iso(r.lastSeenAt),
    last_heartbeat_at: iso(r.lastHeartbeatAt),
    last_message_at: iso(r.lastMessageAt),
    spool_depth: status.spool_depth ?? null,
    dead_letters: status.dead_letters ?? null,
    decoder: status.decoder ?? null,
    decoder_last_line_at: status.decoder_last_line_at ?? null,
    uptime_seconds: status.uptime_seconds ?? null,
    version: status.version ?? null,
    pages_per_hour: extra.pagesPerHour ?? [],
    keys: (extra.keys ?? []).map(presentReceiverKey),
    created_at: r.createdAt.toISOString(),
  };
}

/**
 * Which receivers heard an alert (issue 33: several receivers' copies of one page are one alert, and a
 * page merged into an alert for another capcode counts for it), first heard first. For admins only:
 * members never learn which receiver delivered a page. Throws 404 for an alert that does not exist.
 */
export async function receiversOfAlert(db: Database, alertId: number) {
  const [alert] = await db.select({ id: alerts.id }).from(alerts).where(eq(alerts.id, alertId));
  if (!alert) throw notFound("Alert not found");
  const rows = await db
    .select({
      receiver_id: receivers.id,
      name: receivers.name,
      kind: receivers.kind,
      first_heard_at: alertReceivers.firstHeardAt,
      last_heard_at: alertReceivers.lastHeardAt,
      messages: alertReceivers.messages,
      deleted_at: receivers.deletedAt,
    })
    .from(alertReceivers)
    .innerJoin(receivers, eq(receivers.id, alertReceivers.receiverId))
    .where(eq(alertReceivers.alertId, alertId))
    .orderBy(asc(alertReceivers.firstHeardAt), asc(receivers.id));
  return rows.map(({ deleted_at, ...r }) => ({
    ...r,
    first_heard_at: r.first_heard_at.toISOString(),
    last_heard_at: r.last_heard_at.toISOString(),
    // A deleted receiver's alerts keep saying it heard them.
    deleted: deleted_at !== null,
  }));
}
