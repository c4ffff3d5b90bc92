import { readFileSync } from "node:fs";
import type { Log } from "./log.js";
import type { Spool } from "./spool.js";

/** The reader's version as its heartbeat reports it (the server package's version). */
export const READER_VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return `turnout-reader ${pkg.version ?? "unknown"}`;
  } catch {
    return "turnout-reader unknown";
  }
})();

export type DecoderStatus = "ok" | "silent" | "stopped" | "unknown";

/**
 * Whether multimon-ng is producing lines: `stopped` once its output ended, `silent` when no line came
 * for `silentAfterMs` (from the start when none came yet), `unknown` before that with no line yet.
 */
export function decoderStatus(
  state: { lastLineAt: number | null; startedAt: number; inputEnded: boolean },
  silentAfterMs: number,
  now: number,
): DecoderStatus {
  if (state.inputEnded) return "stopped";
  const since = state.lastLineAt ?? state.startedAt;
  if (now - since > silentAfterMs) return "silent";
  return state.lastLineAt === null ? "unknown" : "ok";
}

/** The heartbeat URL for a server base URL. */
export function heartbeatUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/ingest/heartbeat`;
}

/**
 * Sends a heartbeat every `intervalMs` (and one at start): spool depth, dead letters, decoder status,
 * uptime and version (issue 33). A failed heartbeat is logged once per run of failures and never
 * stops the reader; messages keep flowing through the sender on their own.
 */
export class Heartbeater {
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();
  private lastLineAt: number | null = null;
  private inputEnded = false;
  private failing = false;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly options: {
      baseUrl: string;
      key: string;
      spool: Spool;
      log: Log;
      intervalMs: number;
      decoderSilentMs: number;
      timeoutMs?: number;
    },
  ) {}

  /** A line came from the decoder. */
  noteLine(): void {
    this.lastLineAt = Date.now();
  }

  /** The decoder's output ended. */
  noteInputEnded(): void {
    this.inputEnded = true;
  }

  start(): void {
    if (this.options.intervalMs <= 0) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /** One heartbeat now (resolves when it was answered or failed). */
  beat(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.send().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async send(): Promise<void> {
    const { spool, log } = this.options;
    const now = Date.now();
    const body = {
      spool_depth: await spool.depth().catch(() => undefined),
      dead_letters: await spool.deadLetters(),
      decoder: decoderStatus(
        { lastLineAt: this.lastLineAt, startedAt: this.startedAt, inputEnded: this.inputEnded },
        this.options.decoderSilentMs,
        now,
      ),
      decoder_last_line_at: this.lastLineAt === null ? null : new Date(this.lastLineAt).toISOString(),
      uptime_seconds: Math.round((now - this.startedAt) / 1000),
      version: READER_VERSION,
    };
    let problem: string | null = null;
    try {
      const res = await fetch(heartbeatUrl(this.options.baseUrl), {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.options.key}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      await res.text().catch(() => "");
      if (!res.ok) problem = `HTTP ${res.status}`;
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    if (problem && !this.failing) log.warn("heartbeat_failed", { reason: problem });
    else if (!problem && this.failing) log.info("heartbeat_resumed");
    else if (!problem) log.debug("heartbeat", { spool_depth: body.spool_depth, decoder: body.decoder });
    this.failing = problem !== null;
  }
}
