// The SMS queue as the admin sees it: the list (codes withheld), retries, stuck messages, counts.
import { maskPhone } from "@turnout/domain";
import { and, count, desc, eq, lt, notInArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { smsQueue } from "../db/schema.js";
import { bodyWhenFinished, CODE_SMS_KINDS, isCodeSms, type SmsStatus } from "./queue.js";

/** One queue row as an admin sees it: phone masked, one-time codes withheld. */
export type SmsQueueItem = {
  id: number;
  to: string;
  kind: string;
  status: string;
  /** null for sign-in and activation codes. */
  body: string | null;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date;
  lockedAt: Date | null;
  lastError: string | null;
  providerMessageId: string | null;
  userId: number | null;
  createdAt: Date;
  updatedAt: Date;
  sentAt: Date | null;
};

/** Lists queue rows, newest first, optionally of one status, with the total for paging. */
export async function listQueue(
  db: Database,
  options: { status?: SmsStatus; limit?: number; offset?: number } = {},
): Promise<{ items: SmsQueueItem[]; total: number }> {
  const where = options.status ? eq(smsQueue.status, options.status) : undefined;
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(smsQueue)
      .where(where)
      .orderBy(desc(smsQueue.createdAt), desc(smsQueue.id))
      .limit(options.limit ?? 100)
      .offset(options.offset ?? 0),
    db.select({ total: count() }).from(smsQueue).where(where),
  ]);
  return {
    total: totals?.total ?? 0,
    items: rows.map((r) => ({
      id: r.id,
      to: maskPhone(r.toPhone),
      kind: r.kind,
      status: r.status,
      body: isCodeSms(r.kind) ? null : r.body,
      attempts: r.attempts,
      maxAttempts: r.maxAttempts,
      nextAttemptAt: r.nextAttemptAt,
      lockedAt: r.lockedAt,
      lastError: r.lastError,
      providerMessageId: r.providerMessageId,
      userId: r.userId,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      sentAt: r.sentAt,
    })),
  };
}

const requeueFailed = {
  status: "pending",
  attempts: 0,
  nextAttemptAt: sql`now()`,
  lockedAt: null,
  updatedAt: sql`now()`,
} as const;

// A failed code SMS is never sent again: its code is gone from the row (and has likely expired); the
// user asks for a new code instead.
export const retryable = and(eq(smsQueue.status, "failed"), notInArray(smsQueue.kind, [...CODE_SMS_KINDS]));

/**
 * Puts one failed message back in the queue with fresh attempts; false when it is missing, not failed,
 * or a sign-in/activation code SMS (those are never sent again).
 */
export async function retrySms(db: Database, id: number): Promise<boolean> {
  const rows = await db
    .update(smsQueue)
    .set(requeueFailed)
    .where(and(eq(smsQueue.id, id), retryable))
    .returning({ id: smsQueue.id });
  return rows.length > 0;
}

/** Puts every failed message except code SMS back in the queue with fresh attempts; resolves to how many. */
export async function retryAllFailed(db: Database): Promise<number> {
  const rows = await db.update(smsQueue).set(requeueFailed).where(retryable).returning({ id: smsQueue.id });
  return rows.length;
}

/**
 * Releases messages left in `sending` for longer than `olderThanMs` (their worker died): back to
 * `pending`, due now, or `failed` when they have used all their attempts (a message that kills its
 * worker must not do so forever). Resolves to how many were released.
 */
export async function handleStuck(db: Database, olderThanMs: number): Promise<number> {
  const rows = await db
    .update(smsQueue)
    .set({
      status: sql`case when ${smsQueue.attempts} >= ${smsQueue.maxAttempts} then 'failed' else 'pending' end`,
      body: sql`case when ${smsQueue.attempts} >= ${smsQueue.maxAttempts} then ${bodyWhenFinished} else ${smsQueue.body} end`,
      nextAttemptAt: sql`now()`,
      lockedAt: null,
      leaseUntil: null,
      lastError: "Interrupted while sending (worker stopped or crashed)",
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(smsQueue.status, "sending"),
        lt(smsQueue.lockedAt, sql`now() - make_interval(secs => ${olderThanMs / 1000}::double precision)`),
      ),
    )
    .returning({ id: smsQueue.id });
  return rows.length;
}

/** Queue figures for the monitor: success rate is sent / (sent + failed) as a percentage, null before any. */
export async function smsStats(
  db: Database,
): Promise<{ total_sent: number; success_rate: number | null; pending: number; failed: number }> {
  const [row] = await db
    .select({
      sent: sql<number>`count(*) filter (where ${smsQueue.status} = 'sent')`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${smsQueue.status} = 'failed')`.mapWith(Number),
      pending: sql<number>`count(*) filter (where ${smsQueue.status} in ('pending', 'sending'))`.mapWith(
        Number,
      ),
    })
    .from(smsQueue);
  const sent = row?.sent ?? 0;
  const failed = row?.failed ?? 0;
  const finished = sent + failed;
  return {
    total_sent: sent,
    success_rate: finished === 0 ? null : Math.round((sent / finished) * 1000) / 10,
    pending: row?.pending ?? 0,
    failed,
  };
}
