import type { Logger } from "pino";

/**
 * Runs a background cycle now and then: when kicked (after a commit that left work), and every
 * `pollMs` otherwise. Cycles never overlap: a kick during a cycle schedules one more after it, and
 * kicks before that one begins join it. An error in a cycle is logged; the next poll tries again.
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

  constructor(
    private readonly options: {
      pollMs: number;
      logger: Logger;
      /** Logged with the error when a cycle fails. */
      failureMessage: string;
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
    this.kick();
    return true;
  }

  /** Runs a cycle now, or right after the one in flight. */
  kick(): void {
    if (this.stopped || this.queued) return;
    this.queued = true;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    const run = this.tail.then(async () => {
      this.queued = false;
      if (this.stopped) return;
      try {
        await this.options.cycle();
      } catch (error) {
        this.options.logger.error({ err: error }, this.options.failureMessage);
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

  private schedulePoll(): void {
    if (!this.started || this.stopped || this.queued || this.pollTimer) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.kick();
    }, this.options.pollMs);
    this.pollTimer.unref();
  }
}
