import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { smsQueue } from "../db/schema.js";

export type SmsKind = "otp" | "activation" | "account" | "rule" | "rule_review" | "notice";
export type SmsStatus = "pending" | "sending" | "sent" | "failed";

export const SMS_STATUSES: readonly SmsStatus[] = ["pending", "sending", "sent", "failed"];

/** Kinds whose body is a one-time code: never shown outside the message itself. */
export const CODE_SMS_KINDS: readonly SmsKind[] = ["otp", "activation"];
const CODE_KINDS: ReadonlySet<string> = new Set<SmsKind>(CODE_SMS_KINDS);

/**
 * The body a code SMS keeps once it is sent or has failed for good: the code has done its work (or
 * never will), and the hash in verification_codes is all sign-in needs. Migration 0008 writes the same
 * text into rows stored before this rule.
 */
export const CODE_REMOVED_BODY = "[one-time code removed]";

/** Whether an SMS of this kind carries a one-time code (sign-in or activation). */
export function isCodeSms(kind: string): boolean {
  return CODE_KINDS.has(kind);
}

/** The body column as a statement that finishes a message sets it: code SMS lose their code. */
export const bodyWhenFinished = sql`case when ${smsQueue.kind} in (${sql.join(
  CODE_SMS_KINDS.map((k) => sql`${k}`),
  sql`, `,
)}) then ${CODE_REMOVED_BODY} else ${smsQueue.body} end`;

const FIRST_RETRY_SECONDS = 5;
const MAX_RETRY_SECONDS = 10 * 60;

/**
 * Queues a text message for the worker. Pass the transaction that does the work the message reports
 * (a new sign-in code, an approved rule) so the message exists exactly when that work is committed;
 * call `SmsWorker.nudge()` after the commit to send it at once.
 */
export async function enqueueSms(
  db: Database,
  input: {
    to: string;
    body: string;
    kind: SmsKind;
    userId?: number | null;
    /** Set for keyword-rule messages: the unique index then refuses a second SMS for one trigger. */
    ruleTriggerId?: number | null;
  },
): Promise<{ id: number }> {
  const [row] = await db
    .insert(smsQueue)
    .values({
      toPhone: input.to,
      body: input.body,
      kind: input.kind,
      userId: input.userId ?? null,
      ruleTriggerId: input.ruleTriggerId ?? null,
    })
    .returning({ id: smsQueue.id });
  return { id: row!.id };
}

/** Queues several messages in one statement (same rules as enqueueSms); resolves to their ids in order. */
export async function enqueueManySms(
  db: Database,
  inputs: readonly {
    to: string;
    body: string;
    kind: SmsKind;
    userId?: number | null;
    ruleTriggerId?: number | null;
  }[],
): Promise<number[]> {
  if (inputs.length === 0) return [];
  const rows = await db
    .insert(smsQueue)
    .values(
      inputs.map((input) => ({
        toPhone: input.to,
        body: input.body,
        kind: input.kind,
        userId: input.userId ?? null,
        ruleTriggerId: input.ruleTriggerId ?? null,
      })),
    )
    .returning({ id: smsQueue.id });
  return rows.map((r) => r.id);
}

/** Seconds to wait before the next try after `attempts` failed tries: 5, 10, 20 ... capped at 10 minutes. */
export function retryDelaySeconds(attempts: number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return retryAfterSeconds;
  }
  return Math.min(FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_SECONDS);
}
