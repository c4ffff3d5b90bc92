// The push worker: claims queued push messages under a lease and sends them to the push services.
import { and, eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Urgency } from "web-push";
import type { Database } from "../db/client.js";
import { pushDeliveries, pushSubscriptions } from "../db/schema.js";
import { PollingLoop } from "../support/polling-loop.js";
import { loadWebPush, type VapidKeys } from "./vapid.js";

/** How long a claim holds; renewed while the request is out, so only a dead worker's claims lapse. */
export const PUSH_LEASE_MS = 20_000;
/** A push service that does not answer within this is given up on for this attempt (and retried). */
export const PUSH_REQUEST_TIMEOUT_MS = 10_000;
/** Push services hold a message this long for a device that is offline; older pages are stale. */
export const PUSH_TTL_SECONDS = 3600;
const MAX_ATTEMPTS = 5;
const FIRST_RETRY_SECONDS = 2;
const MAX_RETRY_SECONDS = 300;
const LAST_ERROR_MAX_LENGTH = 300;

type Claimed = {
  id: number;
  attempts: number;
  payload: string;
  urgency: string;
  topic: string | null;
  subscriptionId: number;
  endpoint: string;
  p256dh: string;
  auth: string;
};

export type PushWorkerOptions = {
  db: Database;
  logger: Logger;
  keys: VapidKeys;
  subject: string;
  pollMs?: number;
  /** Messages sent at once per instance (each to its own push service request). */
  concurrency?: number;
  leaseMs?: number;
  timeoutMs?: number;
};

/**
 * Sends queued push messages. Several workers (one per instance) share the table: a claim locks rows
 * with SKIP LOCKED and is a lease renewed while the request is out, so a dead worker's rows are taken
 * over and no two workers send one row at once. The push service's answer decides: 201 sent; 404/410
 * the subscription is gone (deleted, and its queued messages with it); 429/5xx or no answer within the
 * time-out retried with back-off; other 4xx failed. This worker has its own loop and requests with a
 * time-out, so a dead push service holds up nothing but push.
 */
export class PushWorker {
  private readonly loop: PollingLoop;
  private readonly logger: Logger;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  /** Messages out now, by row id: each holds a slot until its push service answers or times out. */
  private readonly inFlight = new Map<number, { row: Claimed; done: Promise<unknown> }>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: PushWorkerOptions) {
    this.logger = options.logger.child({ component: "push" });
    this.concurrency = options.concurrency ?? 32;
    this.leaseMs = options.leaseMs ?? PUSH_LEASE_MS;
    this.timeoutMs = options.timeoutMs ?? PUSH_REQUEST_TIMEOUT_MS;
    this.loop = new PollingLoop({
      pollMs: options.pollMs ?? 1000,
      logger: this.logger,
      failureMessage: "push cycle failed",
      cycle: () => this.cycle(),
    });
  }

  start(): void {
    if (!this.loop.start()) return;
    // Claims of messages still out are renewed; a dead process renews nothing, so its claims lapse.
    this.heartbeat = setInterval(() => void this.renew(), Math.max(50, this.leaseMs / 4));
    this.heartbeat.unref();
  }

  /** Sends what is due now (call after committing queued messages). */
  nudge(): void {
    this.loop.kick();
  }

  /** Stops claiming; resolves once the messages out have been answered (or timed out) and recorded. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    clearInterval(this.heartbeat);
  }

  /** Claims what is due and waits until every message out has its outcome recorded (tests). */
  async runOnce(): Promise<void> {
    await this.loop.runExclusive(() => this.cycle());
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
  }

  /**
   * Fills the free slots with due messages. A message does not wait for the others claimed with it: a
   * push service that hangs holds one slot per message until the time-out, never the whole worker.
   */
  private async cycle(): Promise<void> {
    while (this.inFlight.size < this.concurrency && !this.loop.isStopped) {
      const claimed = await this.claim(this.concurrency - this.inFlight.size);
      for (const row of claimed) {
        const done = this.deliver(row)
          .catch((error: unknown) =>
            this.logger.error({ err: error, pushId: row.id }, "push delivery not recorded"),
          )
          .finally(() => {
            this.inFlight.delete(row.id);
            this.loop.kick();
          });
        this.inFlight.set(row.id, { row, done });
      }
      if (claimed.length === 0) return;
    }
  }

  /** Due rows and rows whose claim lapsed, claimed in one statement (attempts identifies the claim). */
  private async claim(limit: number): Promise<Claimed[]> {
    const lease = sql`now() + make_interval(secs => ${this.leaseMs / 1000}::double precision)`;
    const result = (await this.options.db.execute(sql`
      with picked as materialized (
        select id from push_deliveries
        where (status = 'pending' and next_attempt_at <= now())
           or (status = 'sending' and lease_until < now())
        order by next_attempt_at, id
        limit ${limit}
        for update skip locked
      )
      update push_deliveries d
      set status = 'sending', lease_until = ${lease}, attempts = d.attempts + 1
      from picked, push_subscriptions s
      where d.id = picked.id and s.id = d.subscription_id
      returning d.id, d.attempts, d.payload, d.urgency, d.topic, d.subscription_id, s.endpoint, s.p256dh, s.auth`)) as {
      rows: Record<string, unknown>[];
    };
    return result.rows.map((r) => ({
      id: Number(r.id),
      attempts: Number(r.attempts),
      payload: String(r.payload),
      urgency: String(r.urgency),
      topic: r.topic === null ? null : String(r.topic),
      subscriptionId: Number(r.subscription_id),
      endpoint: String(r.endpoint),
      p256dh: String(r.p256dh),
      auth: String(r.auth),
    }));
  }

  private async renew(): Promise<void> {
    const rows = [...this.inFlight.values()].map((f) => f.row);
    if (rows.length === 0) return;
    const claims = sql.join(
      rows.map((r) => sql`(id = ${r.id} and attempts = ${r.attempts})`),
      sql` or `,
    );
    await this.options.db
      .execute(sql`
        update push_deliveries
        set lease_until = now() + make_interval(secs => ${this.leaseMs / 1000}::double precision)
        where status = 'sending' and (${claims})`)
      .catch((err: unknown) => this.logger.warn({ err }, "push lease not renewed"));
  }

  /** Encrypts and sends one message (web-push builds the request; fetch sends it, with a time-out). */
  private async deliver(row: Claimed): Promise<boolean> {
    let status: number;
    try {
      const webpush = await loadWebPush();
      const request = webpush.generateRequestDetails(
        { endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } },
        row.payload,
        {
          vapidDetails: { subject: this.options.subject, ...this.options.keys },
          TTL: PUSH_TTL_SECONDS,
          urgency: row.urgency as Urgency,
          ...(row.topic ? { topic: row.topic } : {}),
          contentEncoding: "aes128gcm",
        },
      );
      const response = await fetch(request.endpoint, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: request.body as Buffer,
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: "error",
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      await this.retryOrFail(row, describe(error));
      return false;
    }
    if (status >= 200 && status < 300) {
      await this.options.db
        .update(pushDeliveries)
        .set({ status: "sent", sentAt: sql`now()`, leaseUntil: null, lastError: null })
        .where(eq(pushDeliveries.id, row.id));
      return true;
    }
    if (status === 404 || status === 410) {
      // The browser unsubscribed or the subscription expired: prune it (its queued messages go with it).
      await this.options.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, row.subscriptionId));
      this.logger.info({ subscriptionId: row.subscriptionId, status }, "push subscription gone; removed");
      return false;
    }
    const retryable = status === 429 || status >= 500;
    await this.retryOrFail(row, `push service answered ${status}`, !retryable);
    return false;
  }

  private async retryOrFail(row: Claimed, error: string, final = false): Promise<void> {
    const isFinal = final || row.attempts >= MAX_ATTEMPTS;
    const delay = Math.min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (row.attempts - 1));
    await this.options.db
      .update(pushDeliveries)
      .set({
        status: isFinal ? "failed" : "pending",
        leaseUntil: null,
        lastError: error.slice(0, LAST_ERROR_MAX_LENGTH),
        ...(isFinal ? {} : { nextAttemptAt: sql`now() + make_interval(secs => ${delay}::double precision)` }),
      })
      .where(and(eq(pushDeliveries.id, row.id), eq(pushDeliveries.attempts, row.attempts)));
    const context = { pushId: row.id, subscriptionId: row.subscriptionId, attempts: row.attempts, error };
    if (isFinal) this.logger.error(context, "push failed");
    else this.logger.warn({ ...context, retryInSeconds: delay }, "push failed, will retry");
  }
}

/** An error's message without the endpoint (it identifies a device): only its origin is kept. */
function describe(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.replace(/https?:\/\/([^/\s]+)\/\S*/g, "https://$1/…");
}
