// The SMS worker: claims due messages with a lease, sends them through the provider, records the outcome and retries.
import { checkSmsDestination, DEFAULT_SMS_COUNTRIES, maskPhone } from "@turnout/domain";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../db/client.js";
import { smsQueue } from "../db/schema.js";
import { maskPhonesInText } from "../logger.js";
import { PollingLoop } from "../support/polling-loop.js";
import { type SystemLogEntry, writeSystemLog } from "../system-log.js";
import { type SmsProvider, SmsSendError } from "./provider.js";
import { bodyWhenFinished, isCodeSms, retryDelaySeconds } from "./queue.js";

const LAST_ERROR_MAX_LENGTH = 500;

export type SmsWorkerOptions = {
  db: Database;
  provider: SmsProvider;
  logger: Logger;
  /** How often to look for due messages (and claims left by dead workers) when nobody nudges. */
  pollMs?: number;
  /** How many messages one claim takes (they are sent concurrently). */
  batchSize?: number;
  /**
   * How long a claim holds without being renewed. The worker renews its claims every quarter of this
   * while it sends; a claim whose worker died (no renewal) expires, and any worker takes the row again.
   */
  leaseMs?: number;
  /**
   * Countries whose mobiles may receive SMS (issue 27): any other destination fails at once, whatever
   * queued it. Absent: Australia only.
   */
  allowedCountries?: readonly string[];
  /** Called after each message the provider accepted (the service's SMS counts); its errors are logged. */
  onSent?: (kind: string) => Promise<void>;
};

/** The default lease: a message claimed by an instance that dies goes out from another within it (plus a poll). */
export const SMS_LEASE_MS = 20_000;

type ClaimedSms = {
  id: number;
  toPhone: string;
  body: string;
  kind: string;
  attempts: number;
  maxAttempts: number;
  /** The provider's idempotency key for this row (see smsKey). */
  key: string;
  createdAt: Date;
  /** Taken over from a claim whose lease expired (its worker died, maybe after the provider accepted it). */
  takenOver: boolean;
};

/**
 * The key a provider sees for a queue row: the same for every attempt of the row, so a provider that
 * can recognise a second send of it (the outbox; MessageMedia through a lookup) does not page twice.
 * The row's creation time is part of it, so a database started afresh (ids from 1 again) never
 * matches a key of the old one.
 */
export function smsKey(id: number, createdAtMicros: string): string {
  return `turnout-sms-${id}-${createdAtMicros}`;
}

/**
 * Sends queued messages through one provider. Several workers (one per server instance) may run on
 * one database: each claim locks its rows with SKIP LOCKED, so a message is claimed by one of them.
 * A claim is a lease (`lease_until`) that its worker renews while sending; when a worker dies, its
 * claims expire within `leaseMs` and the next poll of any worker takes them. Cycles of one worker never
 * overlap; an error in a cycle is logged and the next poll tries again.
 */
export class SmsWorker {
  private readonly db: Database;
  private readonly provider: SmsProvider;
  private readonly logger: Logger;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly allowedCountries: readonly string[];
  private readonly onSent: ((kind: string) => Promise<void>) | undefined;

  private readonly loop: PollingLoop;

  constructor(options: SmsWorkerOptions) {
    this.db = options.db;
    this.provider = options.provider;
    this.logger = options.logger.child({ component: "sms", provider: options.provider.name });
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 10;
    this.leaseMs = options.leaseMs ?? SMS_LEASE_MS;
    this.allowedCountries = options.allowedCountries ?? DEFAULT_SMS_COUNTRIES;
    this.onSent = options.onSent;
    this.loop = new PollingLoop({
      pollMs: this.pollMs,
      logger: this.logger,
      failureMessage: "sms cycle failed",
      cycle: () => this.cycle(),
    });
  }

  /** Sends what is due (claims of dead workers included), then polls. A stopped worker may be started again. */
  start(): void {
    this.loop.start();
  }

  /** Runs a cycle now (or right after the one in flight): call after committing an enqueued message. */
  nudge(): void {
    this.loop.kick();
  }

  /** Stops polling and resolves once the cycle in flight (if any) has recorded its results. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One cycle, after any cycle in flight: sends every due message; resolves to how many were sent. */
  runOnce(): Promise<number> {
    return this.loop.runExclusive(() => this.cycle());
  }

  /** Claims and sends batches until fewer than a full batch is due (or the worker stops). */
  private async cycle(): Promise<number> {
    let sent = 0;
    for (;;) {
      const claimed = await this.claim();
      if (claimed.length === 0) return sent;
      // The lease is renewed while the batch is out; a dead process renews nothing, so it expires.
      const heartbeat = setInterval(() => void this.renew(claimed), Math.max(50, this.leaseMs / 4));
      heartbeat.unref();
      let results: PromiseSettledResult<boolean>[];
      try {
        // allSettled: every claimed message has its outcome recorded before the cycle reports an error.
        results = await Promise.allSettled(claimed.map((row) => this.deliver(row)));
      } finally {
        clearInterval(heartbeat);
      }
      sent += results.filter((r) => r.status === "fulfilled" && r.value).length;
      const failure = results.find((r) => r.status === "rejected");
      if (failure) throw failure.reason;
      if (claimed.length < this.batchSize || this.loop.isStopped) return sent;
    }
  }

  /**
   * Claims up to a batch in one statement: rows due to be sent, and rows whose claim expired (their
   * worker died). Each CTE is MATERIALIZED so its locking subquery runs once: written as
   * `id IN (subquery)`, PostgreSQL plans a semi join that can rescan it for every pending row.
   * `attempts` goes up by one per claim and identifies it.
   */
  private async claim(): Promise<ClaimedSms[]> {
    const result = (await this.db.execute(sql`
      with expired as materialized (
        select id, true as taken_over from sms_queue
        where status = 'sending' and (lease_until < now() or lease_until is null)
        order by lease_until nulls first, id
        limit ${this.batchSize}
        for update skip locked
      ), due as materialized (
        select id, false as taken_over from sms_queue
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at, id
        limit ${this.batchSize}
        for update skip locked
      ), picked as (
        select * from (select * from expired union all select * from due) as both_kinds
        limit ${this.batchSize}
      )
      update sms_queue
      set status = 'sending', locked_at = now(),
        lease_until = now() + make_interval(secs => ${this.leaseMs / 1000}::double precision),
        attempts = sms_queue.attempts + 1, updated_at = now()
      from picked
      where sms_queue.id = picked.id
        and (sms_queue.status = 'pending'
          or (sms_queue.status = 'sending' and (sms_queue.lease_until < now() or sms_queue.lease_until is null)))
      returning sms_queue.id, sms_queue.to_phone, sms_queue.body, sms_queue.kind,
        sms_queue.attempts, sms_queue.max_attempts, sms_queue.created_at,
        (extract(epoch from sms_queue.created_at) * 1000000)::bigint::text as created_us,
        picked.taken_over`)) as { rows: Record<string, unknown>[] };
    // Both engines answer `{ rows }`; node-postgres gives bigint ids as strings, PGlite as numbers.
    return result.rows
      .map((r) => ({
        id: Number(r.id),
        toPhone: String(r.to_phone),
        body: String(r.body),
        kind: String(r.kind),
        attempts: Number(r.attempts),
        maxAttempts: Number(r.max_attempts),
        key: smsKey(Number(r.id), String(r.created_us)),
        createdAt: new Date(r.created_at as string | Date),
        takenOver: r.taken_over === true || r.taken_over === "t",
      }))
      .sort((a, b) => a.id - b.id);
  }

  /** Extends the lease of the claims of `rows` still in flight (each identified by its attempts). */
  private async renew(rows: ClaimedSms[]): Promise<void> {
    const claims = sql.join(
      rows.map((r) => sql`(id = ${r.id} and attempts = ${r.attempts})`),
      sql` or `,
    );
    try {
      await this.db.execute(sql`
        update sms_queue
        set lease_until = now() + make_interval(secs => ${this.leaseMs / 1000}::double precision)
        where status = 'sending' and (${claims})`);
    } catch (error) {
      this.logger.warn({ err: error }, "sms lease not renewed");
    }
  }

  /** Sends one claimed message and records the outcome; true when the provider accepted it. */
  private async deliver(row: ClaimedSms): Promise<boolean> {
    const message = { to: row.toPhone, body: row.body, key: row.key };
    // Sent before? A claim that expired may have died after the provider accepted the message, and a
    // retry may follow a time-out that the provider did accept: ask, where the provider can tell.
    if (row.attempts > 1 && this.provider.findSent) {
      const found = await this.provider.findSent(message, row.createdAt).catch((error: unknown) => {
        this.logger.warn({ smsId: row.id, err: error }, "sms lookup at the provider failed");
        return null;
      });
      if (found) {
        await this.recordSent(row, found.providerMessageId ?? null);
        this.logger.warn(
          { smsId: row.id, kind: row.kind },
          "sms already accepted by the provider, not sent again",
        );
        return true;
      }
    }
    if (row.takenOver && row.attempts > row.maxAttempts) {
      // A message whose sending kills its worker must not do so forever.
      await this.recordFailure(row, new Error("Interrupted while sending (worker stopped or crashed)"), true);
      return false;
    }
    const destination = checkSmsDestination(row.toPhone, this.allowedCountries);
    if (!destination.ok) {
      // Whatever queued it (an account created before the rule, a number an admin typed): never sent.
      const refusal = new SmsSendError(`Destination not allowed: ${destination.message}`, {
        retryable: false,
      });
      await this.recordFailure(row, refusal, true);
      return false;
    }
    let providerMessageId: string | null;
    try {
      const result = await this.provider.send(message);
      providerMessageId = result.providerMessageId ?? null;
    } catch (error) {
      await this.recordFailure(row, error);
      return false;
    }
    await this.recordSent(row, providerMessageId);
    this.logger.info({ smsId: row.id, kind: row.kind, to: maskPhone(row.toPhone) }, "sms sent");
    await this.onSent?.(row.kind).catch((error: unknown) => {
      this.logger.warn({ smsId: row.id, err: error }, "sms not counted in the budget");
    });
    return true;
  }

  /**
   * Marks the row sent. Also when this claim has expired meanwhile (the row is `sending` under a newer
   * claim, or `pending` after an admin released it): the message did go out, and a later claim must
   * not send it again. The code leaves the row in this same statement: no moment where a sent code
   * sits in the table.
   */
  private async recordSent(row: ClaimedSms, providerMessageId: string | null): Promise<void> {
    await this.db
      .update(smsQueue)
      .set({
        status: "sent",
        body: bodyWhenFinished,
        sentAt: sql`now()`,
        providerMessageId,
        lastError: null,
        lockedAt: null,
        leaseUntil: null,
        updatedAt: sql`now()`,
      })
      .where(and(eq(smsQueue.id, row.id), inArray(smsQueue.status, ["sending", "pending"])));
  }

  private async recordFailure(row: ClaimedSms, error: unknown, final?: boolean): Promise<void> {
    // Errors that are not SmsSendError (a dropped connection, a timeout) are worth another try.
    const retryable = error instanceof SmsSendError ? error.retryable : true;
    const retryAfter = error instanceof SmsSendError ? error.retryAfterSeconds : undefined;
    const isFinal = final ?? (!retryable || row.attempts >= row.maxAttempts);
    const lastError = describeError(error, row);
    const delay = retryDelaySeconds(row.attempts, retryAfter);
    await this.db
      .update(smsQueue)
      .set({
        status: isFinal ? "failed" : "pending",
        ...(isFinal
          ? { body: bodyWhenFinished, attempts: sql`least(${smsQueue.attempts}, ${smsQueue.maxAttempts})` }
          : { nextAttemptAt: sql`now() + make_interval(secs => ${delay}::double precision)` }),
        lastError,
        lockedAt: null,
        leaseUntil: null,
        updatedAt: sql`now()`,
      })
      // Only the claim that sent it may record the failure (attempts identifies the claim).
      .where(
        and(eq(smsQueue.id, row.id), eq(smsQueue.status, "sending"), eq(smsQueue.attempts, row.attempts)),
      );
    const attempts = Math.min(row.attempts, row.maxAttempts);
    const context = { smsId: row.id, kind: row.kind, attempts, error: lastError };
    if (isFinal) this.logger.error(context, "sms failed");
    else this.logger.warn({ ...context, retryInSeconds: delay }, "sms send failed, will retry");
    await writeSystemLog(this.db, smsFailureEntry({ ...row, attempts }, lastError, isFinal, delay));
  }
}

/**
 * The system log's record of a failed send: given up (error), or a provider error that will be retried
 * (warn: during a provider outage these show one per attempt). The error text is already phone-free.
 */
function smsFailureEntry(
  row: ClaimedSms,
  lastError: string,
  final: boolean,
  retryIn: number,
): SystemLogEntry {
  return {
    level: final ? "error" : "warn",
    category: "sms",
    message: final
      ? `SMS ${row.id} (${row.kind}) failed after ${row.attempts} attempts: ${lastError}`
      : `SMS provider error on SMS ${row.id} (${row.kind}), retry in ${retryIn} s: ${lastError}`,
    details: { sms_id: row.id, kind: row.kind, attempts: row.attempts, final },
  };
}

/**
 * The error text kept in the row and the logs: no phone numbers, no body, and for a code SMS not the
 * code either (a provider may quote the code alone, e.g. "content 123456 rejected").
 */
function describeError(error: unknown, row: ClaimedSms): string {
  let text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  text = text.split(row.body).join("[body]").split(row.toPhone).join(maskPhone(row.toPhone));
  if (isCodeSms(row.kind)) {
    for (const digits of row.body.match(/\d{4,}/g) ?? []) text = text.split(digits).join("[code]");
  }
  return maskPhonesInText(text).slice(0, LAST_ERROR_MAX_LENGTH);
}
