import type { Logger } from "pino";
import { CacheUnavailableError } from "../cache/cache.js";
import { isConnectionFailure } from "../db/reachability.js";

const DEFAULT_MAX_BACKOFF_MS = 10_000;

/**
 * Runs a background cycle now and then: when kicked (after a commit that left work), and every
 * `pollMs` otherwise. Cycles never overlap: a kick during a cycle schedules one more after it, and
 * kicks before that one begins join it. An error in a cycle is logged; the next poll tries again,
 * later after each failure in a row (doubling up to `maxBackoffMs`), so a database outage is not a
 * tight loop of errors; a kick still runs a cycle at once. An outage (the database out of reach or its
 * disk full, the cache store not answering) is logged once when the loop first meets it and once when
 * a cycle succeeds again, without a stack, not on every cycle; any other failure is logged each time.
 * Timers are unref'd, so a loop never keeps the process alive.
 */
export class PollingLoop {
  private started = false;
  private stopped = false;
  /** A cycle has been asked for and has not begun yet: further kicks join it. */
  private queued = false;
  /** The last cycle asked for; the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();
  private pollTimer: NodeJS.Timeout | undefined;
  /** Cycles failed in a row: the next poll waits longer for each. */
  private failures = 0;
  /** When the outage the loop is waiting out began (null: none). */
  private outageSince: number | null = null;

  constructor(
    private readonly options: {
      pollMs: number;
      logger: Logger;
      /** Logged with the error when a cycle fails. */
      failureMessage: string;
      /**
       * A kick waits this long before its cycle starts, so a burst of kicks (a commit each) is served
       * by one cycle instead of one per kick. Polls and start() are not delayed. Default 0.
       */
      kickDelayMs?: number;
      /** The longest wait between polls after failures in a row. Default 10 s. */
      maxBackoffMs?: number;
      cycle: () => Promise<unknown>;
    },
  ) {}

  /** True once stop() was called (until the next start()). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** True between start() and stop(). */
  get running(): boolean {
    return this.started && !this.stopped;
  }

  /** Starts polling with a first cycle now; returns false if it was running already. A stopped loop may start again. */
  start(): boolean {
    if (this.running) return false;
    this.started = true;
    this.stopped = false;
    this.schedule(0);
    return true;
  }

  /** Runs a cycle now (after `kickDelayMs`), or right after the one in flight. */
  kick(): void {
    this.schedule(this.options.kickDelayMs ?? 0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.queued) return;
    this.queued = true;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    const run = this.tail.then(async () => {
      // Kicks during the wait join this cycle (`queued` stays set until it begins).
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      this.queued = false;
      if (this.stopped) return;
      try {
        await this.options.cycle();
        this.failures = 0;
        if (this.outageSince !== null) {
          this.options.logger.warn(
            { outageMs: Date.now() - this.outageSince },
            `${this.options.failureMessage}: resumed, the outage is over`,
          );
          this.outageSince = null;
        }
      } catch (error) {
        this.failures++;
        if (isOutage(error)) {
          if (this.outageSince !== null) return;
          this.outageSince = Date.now();
          this.options.logger.warn(
            { reason: outageReason(error) },
            `${this.options.failureMessage}: the database or cache store is out of reach; retrying quietly until it is back`,
          );
          return;
        }
        this.options.logger.error(
          { err: error, failuresInARow: this.failures, nextPollMs: this.nextPollMs() },
          this.options.failureMessage,
        );
      }
    });
    this.tail = run.finally(() => this.schedulePoll());
  }

  /** Stops polling and resolves once the cycle in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    await this.tail;
  }

  /** Runs `work` after any cycle in flight (never beside one) and resolves to its result. */
  runExclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => {});
    return run;
  }

  private nextPollMs(): number {
    const { pollMs, maxBackoffMs = DEFAULT_MAX_BACKOFF_MS } = this.options;
    if (this.failures === 0) return pollMs;
    return Math.max(pollMs, Math.min(pollMs * 2 ** this.failures, maxBackoffMs));
  }

  private schedulePoll(): void {
    if (!this.started || this.stopped || this.queued || this.pollTimer) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.schedule(0);
    }, this.nextPollMs());
    this.pollTimer.unref();
  }
}

/** A failure that says a service is out of reach, not that the cycle is wrong: waited out quietly. */
function isOutage(error: unknown): boolean {
  return isConnectionFailure(error) || error instanceof CacheUnavailableError;
}

/** The innermost message of an outage, for its one log line (never a query's parameters). */
function outageReason(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && (e as { cause?: unknown })?.cause; depth++)
    e = (e as { cause: unknown }).cause;
  return String((e as { message?: unknown })?.message ?? e).slice(0, 200);
}
