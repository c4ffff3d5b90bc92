import { postMessages } from "./ingest-client.js";
import type { Log } from "./log.js";
import type { Spool, SpoolEntry } from "./spool.js";

export type SenderOptions = {
  spool: Spool;
  /** Server base URL, e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  key: string;
  log: Log;
  /** Messages per request (the endpoint takes up to 1000). */
  batchSize?: number;
  /** Backoff after a failed attempt: baseDelayMs doubling up to maxDelayMs, with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A server's Retry-After is honoured up to this long. */
  maxRetryAfterMs?: number;
  requestTimeoutMs?: number;
  /** With nothing to send, look at the spool again this often even when not nudged. */
  idlePollMs?: number;
  random?: () => number;
};

/** The server refused the key (401/403): nothing can be delivered until an operator fixes it. */
export class UnauthorisedError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`the server refused the ingest key (HTTP ${status}${detail ? `: ${detail}` : ""})`);
    this.name = "UnauthorisedError";
  }
}

/**
 * Drains the spool, oldest first, in batches. A message leaves the spool only after the server's 2xx
 * stored it, or refused it: a refused message is set aside in the dead-letter file so it cannot hold
 * up the ones behind it. Per-message refusals come in the 2xx reply; a batch the server refuses with
 * a 4xx is split in halves until the refused messages stand alone. Network errors, timeouts, 408, 429
 * and 5xx are retried with exponential backoff (honouring Retry-After) for as long as it takes. A
 * 401/403 stops the sender (start() rejects with UnauthorisedError).
 */
export class Sender {
  private readonly spool: Spool;
  private readonly log: Log;
  private readonly baseUrl: string;
  private readonly key: string;
  private readonly batchSize: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly requestTimeoutMs: number;
  private readonly idlePollMs: number;
  private readonly random: () => number;
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private nudged = false;
  private emptyWaiters: Array<() => void> = [];

  constructor(options: SenderOptions) {
    this.spool = options.spool;
    this.log = options.log;
    this.baseUrl = options.baseUrl;
    this.key = options.key;
    this.batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 100));
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 15 * 60_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.idlePollMs = options.idlePollMs ?? 5000;
    this.random = options.random ?? Math.random;
  }

  get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  /** Starts draining; the promise settles when the sender stops (rejects on a refused key). */
  start(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Something new is in the spool: look now rather than at the next poll. */
  nudge(): void {
    this.nudged = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Resolves once a scan that began after this call finds the spool empty. */
  whenEmpty(): Promise<void> {
    return new Promise((resolve) => {
      this.emptyWaiters.push(resolve);
      this.nudge();
    });
  }

  /** Stops after aborting any request in flight; whatever was not acknowledged stays in the spool. */
  async stop(): Promise<void> {
    this.stopController.abort();
    await this.running?.catch(() => {});
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.nudged = false;
      const waiters = this.emptyWaiters.splice(0);
      let batch: SpoolEntry[] = [];
      try {
        batch = await this.spool.next(this.batchSize);
        if (batch.length === 0) {
          for (const resolve of waiters) resolve();
          await this.pause(this.idlePollMs, true);
          continue;
        }
        this.emptyWaiters.unshift(...waiters);
        if (!(await this.deliver(batch))) this.spool.unread(batch);
        failures = 0;
      } catch (err) {
        this.emptyWaiters.unshift(...waiters);
        if (err instanceof UnauthorisedError) {
          this.log.error("ingest_key_refused", { status: err.status, detail: err.detail });
          throw err;
        }
        // Disk trouble and the like: the files stay where they are; retry the same batch first.
        this.spool.unread(batch);
        const delayMs = this.backoff(failures++);
        this.log.error("sender_error", { error: String(err), retryInMs: delayMs });
        await this.pause(delayMs, false);
      }
    }
  }

  /** Sends entries until stored or rejected; false when a stop interrupted it. */
  private async deliver(entries: SpoolEntry[]): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) return false;
      const items = entries.map((e) => e.item);
      const outcome = await postMessages({
        baseUrl: this.baseUrl,
        key: this.key,
        items,
        timeoutMs: this.requestTimeoutMs,
        signal: this.stopController.signal,
      });
      switch (outcome.kind) {
        case "stored": {
          const refused = new Map(outcome.refused.map((r) => [r.index, r.reason]));
          await this.setAside(
            entries.flatMap((entry, index) => {
              const reason = refused.get(index);
              return reason === undefined ? [] : [{ entry, status: 200, reason }];
            }),
          );
          await this.spool.remove(entries.filter((_, index) => !refused.has(index)));
          this.log.info("delivered", {
            count: items.length - refused.size,
            refused: refused.size,
            firstId: items[0]?.id,
            lastId: items[items.length - 1]?.id,
            attempts: attempt + 1,
          });
          return true;
        }
        case "unauthorised":
          throw new UnauthorisedError(outcome.status, outcome.detail);
        case "rejected":
          return this.handleRejected(entries, outcome.status, outcome.detail);
        case "retry": {
          if (this.stopped) return false;
          const backoff = this.backoff(attempt);
          const delayMs =
            outcome.retryAfterMs === undefined
              ? backoff
              : Math.max(Math.min(outcome.retryAfterMs, this.maxRetryAfterMs), backoff);
          this.log.warn("delivery_retry", {
            count: items.length,
            status: outcome.status,
            reason: outcome.reason,
            attempt: attempt + 1,
            retryInMs: Math.round(delayMs),
          });
          await this.pause(delayMs, false);
        }
      }
    }
  }

  private async handleRejected(entries: SpoolEntry[], status: number, detail: string): Promise<boolean> {
    if (entries.length > 1) {
      // One bad message must not take good ones with it: halve until the bad ones stand alone.
      const mid = Math.ceil(entries.length / 2);
      this.log.warn("batch_rejected_splitting", { count: entries.length, status, detail });
      if (!(await this.deliver(entries.slice(0, mid)))) return false;
      return this.deliver(entries.slice(mid));
    }
    await this.setAside(entries.map((entry) => ({ entry, status, reason: detail })));
    return true;
  }

  /** Moves refused messages to the dead-letter file; one log line each, without the pager text. */
  private async setAside(refused: { entry: SpoolEntry; status: number; reason: string }[]): Promise<void> {
    if (refused.length === 0) return;
    await this.spool.setAside(
      refused.map(({ entry, status, reason }) => ({ entry, reason: { status, reason } })),
    );
    for (const { entry, status, reason } of refused) {
      this.log.error("message_set_aside", {
        id: entry.item.id,
        capcode: entry.item.capcode,
        status,
        reason,
        file: this.spool.deadLetterFile,
      });
    }
  }

  /** base * 2^attempt capped at max, then "equal jitter": somewhere between half and all of it. */
  private backoff(attempt: number): number {
    const capped = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(attempt, 30));
    return capped / 2 + (this.random() * capped) / 2;
  }

  private pause(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped || (wakeable && this.nudged)) return Promise.resolve();
    return new Promise((resolve) => {
      const signal = this.stopController.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      if (wakeable) this.wake = done;
    });
  }
}
