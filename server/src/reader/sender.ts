// One file on purpose (over 400 lines): it is one class, the Sender, whose batching, halving, holding
// back, setting aside and backoff all work on the same spool, clock, held set and stop signal; split
// apart, each part would need the others' private state.
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
  /**
   * A message the server fails on (a 5xx other than 503) while it stores others is set aside after this
   * many failed tries on its own (READER_MAX_TRIES)...
   */
  maxTries?: number;
  /** ...or after failing on its own for this long, whichever comes first (READER_MAX_RETRY_SECONDS). */
  maxRetryMs?: number;
  /** At most this many messages are held back on their own at once; past it a 5xx waits like an outage. */
  maxHeld?: number;
  random?: () => number;
  now?: () => number;
};

/** A message held back on its own after the server failed on it, until it is due for another try. */
type Held = {
  entry: SpoolEntry;
  /** Tries on its own that the server failed (5xx other than 503). */
  tries: number;
  firstFailedAt: number;
  dueAt: number;
  last: { status?: number; reason: string };
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
 * a 4xx is split in halves until the refused messages stand alone.
 *
 * A batch the server fails on (5xx other than 503: the server broke on something in it) is split in
 * halves too, so the messages around a bad one are delivered; a message that fails on its own is held
 * back and retried on its own with backoff while later pages go out. Once it has failed `maxTries`
 * times, or for `maxRetryMs`, and the server has stored other messages since it first failed (so it
 * is this message, not the server), it is set aside in the dead-letter file with a loud log line.
 * Network errors, timeouts, 408, 429 and 503 (the server is unavailable) are retried with exponential
 * backoff (honouring Retry-After) for as long as it takes, whole, and so is a 5xx while `maxHeld`
 * messages are held already: an outage sets nothing aside. A 401/403 stops the sender (start()
 * rejects with UnauthorisedError).
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
  private readonly maxTries: number;
  private readonly maxRetryMs: number;
  private readonly maxHeld: number;
  private readonly random: () => number;
  private readonly now: () => number;
  /** Messages held back on their own, by spool name. */
  private readonly held = new Map<string, Held>();
  /** When the server last stored a message: proof it works while one message keeps failing. */
  private lastStoredAt = Number.NEGATIVE_INFINITY;
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
    this.maxTries = Math.max(1, options.maxTries ?? 5);
    this.maxRetryMs = options.maxRetryMs ?? 10 * 60_000;
    this.maxHeld = Math.max(1, options.maxHeld ?? 10);
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
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
        if (!(await this.retryHeld())) continue;
        batch = await this.spool.next(this.batchSize, new Set(this.held.keys()));
        if (batch.length === 0) {
          if (this.held.size === 0) for (const resolve of waiters) resolve();
          else this.emptyWaiters.unshift(...waiters);
          await this.pause(Math.min(this.idlePollMs, this.untilNextDue()), true);
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
          if (refused.size < entries.length) this.lastStoredAt = this.now();
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
          if (this.serverFailedOn(outcome.status) && this.held.size < this.maxHeld) {
            // Something in this batch breaks the server: halve until it stands alone, deliver the rest.
            if (entries.length > 1) return this.split(entries, outcome.status!, outcome.reason);
            this.hold(entries[0]!, { status: outcome.status, reason: outcome.reason });
            return true;
          }
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

  /** A 5xx that means the server failed on the request, not that it is unavailable (503). */
  private serverFailedOn(status: number | undefined): boolean {
    return status !== undefined && status >= 500 && status !== 503;
  }

  private async split(entries: SpoolEntry[], status: number, reason: string): Promise<boolean> {
    const mid = Math.ceil(entries.length / 2);
    this.log.warn("batch_failed_splitting", { count: entries.length, status, reason });
    if (!(await this.deliver(entries.slice(0, mid)))) return false;
    return this.deliver(entries.slice(mid));
  }

  /** Holds a message back on its own after the server failed on it; it is tried again when due. */
  private hold(entry: SpoolEntry, last: Held["last"]): void {
    const now = this.now();
    const held = this.held.get(entry.name) ?? { entry, tries: 0, firstFailedAt: now, dueAt: now, last };
    held.tries += 1;
    held.last = last;
    held.dueAt = now + this.backoff(held.tries - 1);
    this.held.set(entry.name, held);
    this.log.warn("message_held_back", {
      id: entry.item.id,
      capcode: entry.item.capcode,
      status: last.status,
      reason: last.reason,
      tries: held.tries,
      retryInMs: Math.round(held.dueAt - now),
    });
  }

  private untilNextDue(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const h of this.held.values()) next = Math.min(next, h.dueAt);
    return Math.max(0, next - this.now());
  }

  /**
   * Tries each held message that is due, alone: stored, refused, held again, or set aside after its
   * bounded tries and time when the server has stored others meanwhile. False when a stop cut it short.
   */
  private async retryHeld(): Promise<boolean> {
    const due = [...this.held.values()].filter((h) => h.dueAt <= this.now());
    for (const held of due) {
      if (this.stopped) return false;
      const entry = await this.spool.read(held.entry.name);
      if (!entry) {
        this.held.delete(held.entry.name);
        continue;
      }
      const outcome = await postMessages({
        baseUrl: this.baseUrl,
        key: this.key,
        items: [entry.item],
        timeoutMs: this.requestTimeoutMs,
        signal: this.stopController.signal,
      });
      if (this.stopped) return false;
      if (outcome.kind === "unauthorised") throw new UnauthorisedError(outcome.status, outcome.detail);
      if (outcome.kind === "stored" || outcome.kind === "rejected") {
        this.held.delete(entry.name);
        await this.deliverOutcome(entry, outcome);
        continue;
      }
      if (!this.serverFailedOn(outcome.status)) {
        // The server is unavailable or out of reach: no try counted, wait and ask again.
        held.dueAt = this.now() + Math.max(this.backoff(held.tries), outcome.retryAfterMs ?? 0);
        continue;
      }
      const now = this.now();
      const spent = held.tries + 1 >= this.maxTries || now - held.firstFailedAt >= this.maxRetryMs;
      if (spent && this.lastStoredAt > held.firstFailedAt) {
        this.held.delete(entry.name);
        await this.setAsideAfterFailures(entry, held.tries + 1, held.firstFailedAt, outcome);
      } else {
        this.hold(entry, { status: outcome.status, reason: outcome.reason });
      }
    }
    return true;
  }

  /** A held message the server answered at last: stored, or refused (set aside as any refusal). */
  private async deliverOutcome(
    entry: SpoolEntry,
    outcome:
      | { kind: "stored"; refused: { reason: string }[] }
      | { kind: "rejected"; status: number; detail: string },
  ): Promise<void> {
    if (outcome.kind === "rejected") {
      await this.setAside([{ entry, status: outcome.status, reason: outcome.detail }]);
      return;
    }
    const refusal = outcome.refused[0];
    if (refusal) await this.setAside([{ entry, status: 200, reason: refusal.reason }]);
    else {
      await this.spool.remove([entry]);
      this.lastStoredAt = this.now();
      this.log.info("delivered", {
        count: 1,
        refused: 0,
        firstId: entry.item.id,
        lastId: entry.item.id,
        held: true,
      });
    }
  }

  /** The dead-letter file for a message the server kept failing on while it stored others; logged loudly. */
  private async setAsideAfterFailures(
    entry: SpoolEntry,
    tries: number,
    firstFailedAt: number,
    outcome: { status?: number; reason: string },
  ): Promise<void> {
    const reason = `the server failed on this message ${tries} times over ${Math.round((this.now() - firstFailedAt) / 1000)} s while storing others: ${outcome.reason}`;
    await this.spool.setAside([{ entry, reason: { status: outcome.status ?? 0, reason } }]);
    this.log.error("MESSAGE_SET_ASIDE_SERVER_ERROR", {
      id: entry.item.id,
      capcode: entry.item.capcode,
      status: outcome.status,
      tries,
      reason,
      file: this.spool.deadLetterFile,
      action: "not delivered: post it by hand once the server is fixed",
    });
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
