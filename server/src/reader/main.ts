// biome-ignore-all lint/style/noProcessEnv: the reader is its own program; this is its config
/*
 * The pager reader: multimon-ng output on stdin -> spool on disk -> Turnout's ingest endpoint.
 *
 *   rtl_fm ... | multimon-ng -a POCSAG512 -a POCSAG1200 -a POCSAG2400 -a FLEX -f alpha -t raw /dev/stdin \
 *     | npm run reader -- --url http://127.0.0.1:3000 --key <key>
 *
 * Every parsed message is on disk before any network attempt; the sender drains the spool for as long
 * as the program runs. At the end of input it keeps sending until the spool is empty; SIGINT/SIGTERM stop
 * it at once, leaving what is unsent for the next start. Logs are JSON lines on stderr.
 */
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { Heartbeater } from "./heartbeat.js";
import { readLines } from "./lines.js";
import { createLog, isLogLevel, type LogLevel, preview } from "./log.js";
import { classifyMultimonLine, FlexFragmentJoiner, type ParsedPage } from "./multimon.js";
import { Sender, UnauthorisedError } from "./sender.js";
import { type NewSpoolMessage, Spool } from "./spool.js";

const USAGE = `Usage: npm run reader -- --url <server> --key <ingest key> [options]
  (or: tsx server/src/reader/main.ts ...)

Reads multimon-ng output (POCSAG and FLEX) on stdin and delivers each message to Turnout.

  --url <url>          Turnout server, e.g. http://127.0.0.1:3000        env TURNOUT_URL
  --key <key>          ingest API key (env is safer: argv shows in ps)  env TURNOUT_INGEST_KEY
  --source <name>      name of this receiver (default: host name)       env READER_SOURCE
  --spool <dir>        spool folder (default: ./data/reader-spool)      env READER_SPOOL_DIR
  --log-level <level>  debug | info | warn | error (default: info)      env READER_LOG_LEVEL
  --max-tries <n>      tries before a message the server fails on (5xx) while it
                       stores others is set aside (default: 5)         env READER_MAX_TRIES
  --max-retry-seconds <s>  ...or after failing this long (default: 600) env READER_MAX_RETRY_SECONDS
  --heartbeat-seconds <s>  heartbeat to the server every s seconds; 0: none
                       (default: 60)                                   env READER_HEARTBEAT_SECONDS
  --decoder-silent-seconds <s>  decoder reported silent after s seconds
                       without a line (default: 1800)                  env READER_DECODER_SILENT_SECONDS
  -h, --help           this text

Exit status: 0 after the input ends and the spool is empty, or after SIGINT/SIGTERM;
1 when the server refuses the key (401/403) or on a fatal error; 2 on a usage error.
`;

type Config = {
  url: string;
  key: string;
  source: string;
  spoolDir: string;
  logLevel: LogLevel;
  maxTries: number;
  maxRetryMs: number;
  heartbeatMs: number;
  decoderSilentMs: number;
};

function readConfig(): Config | { error: string } | "help" {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        url: { type: "string" },
        key: { type: "string" },
        source: { type: "string" },
        spool: { type: "string" },
        "log-level": { type: "string" },
        "max-tries": { type: "string" },
        "max-retry-seconds": { type: "string" },
        "heartbeat-seconds": { type: "string" },
        "decoder-silent-seconds": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  if (values.help) return "help";
  const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
  const url = str(values.url) ?? str(process.env.TURNOUT_URL);
  const key = str(values.key) ?? str(process.env.TURNOUT_INGEST_KEY);
  const source = str(values.source) ?? str(process.env.READER_SOURCE) ?? hostname();
  const spoolDir = str(values.spool) ?? str(process.env.READER_SPOOL_DIR) ?? "./data/reader-spool";
  const logLevel = str(values["log-level"]) ?? str(process.env.READER_LOG_LEVEL) ?? "info";
  if (!url) return { error: "missing --url (or TURNOUT_URL)" };
  if (!/^https?:\/\/[^/]/.test(url)) return { error: `--url must be an http:// or https:// URL, got ${url}` };
  if (!key) return { error: "missing --key (or TURNOUT_INGEST_KEY)" };
  if (!isLogLevel(logLevel))
    return { error: `--log-level must be debug, info, warn or error, got ${logLevel}` };
  const maxTries = str(values["max-tries"]) ?? str(process.env.READER_MAX_TRIES) ?? "5";
  const maxRetrySeconds =
    str(values["max-retry-seconds"]) ?? str(process.env.READER_MAX_RETRY_SECONDS) ?? "600";
  if (!/^\d{1,4}$/.test(maxTries) || Number(maxTries) < 1)
    return { error: `--max-tries must be a whole number from 1 to 9999, got ${maxTries}` };
  if (!/^\d{1,7}$/.test(maxRetrySeconds) || Number(maxRetrySeconds) < 1)
    return { error: `--max-retry-seconds must be a whole number of seconds, got ${maxRetrySeconds}` };
  const heartbeatSeconds =
    str(values["heartbeat-seconds"]) ?? str(process.env.READER_HEARTBEAT_SECONDS) ?? "60";
  if (!/^\d{1,6}$/.test(heartbeatSeconds))
    return {
      error: `--heartbeat-seconds must be a whole number of seconds (0: none), got ${heartbeatSeconds}`,
    };
  const decoderSilentSeconds =
    str(values["decoder-silent-seconds"]) ?? str(process.env.READER_DECODER_SILENT_SECONDS) ?? "1800";
  if (!/^\d{1,7}$/.test(decoderSilentSeconds) || Number(decoderSilentSeconds) < 1)
    return {
      error: `--decoder-silent-seconds must be a whole number of seconds, got ${decoderSilentSeconds}`,
    };
  return {
    url,
    key,
    source,
    spoolDir,
    logLevel,
    maxTries: Number(maxTries),
    maxRetryMs: Number(maxRetrySeconds) * 1000,
    heartbeatMs: Number(heartbeatSeconds) * 1000,
    decoderSilentMs: Number(decoderSilentSeconds) * 1000,
  };
}

async function main(): Promise<number> {
  const config = readConfig();
  if (config === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if ("error" in config) {
    process.stderr.write(`reader: ${config.error}\n\n${USAGE}`);
    return 2;
  }

  const log = createLog((line) => process.stderr.write(line), config.logLevel);
  const spool = new Spool(config.spoolDir, { log });
  const waiting = await spool.open();
  const sender = new Sender({
    spool,
    baseUrl: config.url,
    key: config.key,
    log,
    maxTries: config.maxTries,
    maxRetryMs: config.maxRetryMs,
  });
  const heartbeater = new Heartbeater({
    baseUrl: config.url,
    key: config.key,
    spool,
    log,
    intervalMs: config.heartbeatMs,
    decoderSilentMs: config.decoderSilentMs,
  });
  log.info("started", { url: config.url, source: config.source, spool: spool.dir, waiting });
  heartbeater.start();

  let stopping = false;
  let writes: Promise<void> = Promise.resolve();
  const joiner = new FlexFragmentJoiner((page) => {
    for (const capcode of page.capcodes) {
      const message = { capcode, message: page.message, timestamp: page.timestamp, source: config.source };
      writes = writes.then(() => spoolWithRetry(message, page));
    }
  });

  async function spoolWithRetry(message: NewSpoolMessage, page: ParsedPage): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const item = await spool.add(message);
        log.info("spooled", {
          id: item.id,
          capcode: item.capcode,
          protocol: page.protocol,
          timestamp: item.timestamp,
          chars: item.message.length,
          preview: preview(item.message),
        });
        log.debug("spooled_text", { id: item.id, message: item.message });
        sender.nudge();
        return;
      } catch (err) {
        if (stopping && attempt >= 2) {
          // The one place a message can be lost (the disk refuses it as we stop): keep it in the log.
          log.error("message_not_spooled", {
            ...message,
            timestamp: message.timestamp.toISOString(),
            error: String(err),
          });
          return;
        }
        const retryInMs = Math.min(30_000, 500 * 2 ** attempt);
        log.error("spool_write_failed", { error: String(err), capcode: message.capcode, retryInMs });
        await new Promise((resolve) => setTimeout(resolve, stopping ? 200 : retryInMs));
      }
    }
  }

  let signalled: (name: string) => void = () => {};
  const signal = new Promise<{ kind: "signal"; name: string }>((resolve) => {
    signalled = (name) => resolve({ kind: "signal", name });
  });
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.on(name, () => {
      if (stopping) {
        log.warn("forced_exit", { signal: name });
        process.exit(1);
      }
      signalled(name);
    });
  }

  const input = (async () => {
    for await (const line of readLines(process.stdin)) {
      if (stopping) break;
      heartbeater.noteLine();
      const result = classifyMultimonLine(line, new Date());
      if (result.kind === "page") joiner.push(result.page);
      else if (result.reason === "unrecognised") log.warn("line_unrecognised", { line: preview(line, 60) });
      else log.debug("line_skipped", { reason: result.reason, line: preview(line, 60) });
    }
  })().then(
    () => {
      heartbeater.noteInputEnded();
      return { kind: "eof" as const };
    },
    (err: unknown) => {
      log.error("input_error", { error: String(err) });
      return { kind: "eof" as const };
    },
  );

  const senderEnd = sender.start().then(
    () => ({ kind: "sender-stopped" as const }),
    (error: unknown) => ({ kind: "sender-failed" as const, error }),
  );

  /** Spools what has been read (held FLEX fragments too), stops the sender, and reports. */
  async function finish(code: number, event: string, fields: Record<string, unknown> = {}): Promise<number> {
    stopping = true;
    joiner.flushAll();
    await writes;
    await sender.stop();
    await heartbeater.stop();
    log.info(event, { ...fields, exitCode: code });
    return code;
  }

  type Outcome =
    | { kind: "eof" }
    | { kind: "drained" }
    | { kind: "signal"; name: string }
    | { kind: "sender-stopped" }
    | { kind: "sender-failed"; error: unknown };
  let first: Outcome = await Promise.race([input, signal, senderEnd]);
  if (first.kind === "eof") {
    joiner.flushAll();
    await writes;
    log.info("input_closed", { note: "sending what is left in the spool" });
    first = await Promise.race([
      sender.whenEmpty().then(() => ({ kind: "drained" as const })),
      signal,
      senderEnd,
    ]);
    if (first.kind === "drained") return finish(0, "drained");
  }
  if (first.kind === "signal")
    return finish(0, "stopped", { signal: first.name, note: "unsent messages stay in the spool" });
  if (first.kind === "sender-failed") {
    const refused = first.error instanceof UnauthorisedError;
    log.error("fatal", {
      reason: refused
        ? `${(first.error as Error).message}. Check --key / TURNOUT_INGEST_KEY. Messages stay in ${spool.dir} and are sent on the next start.`
        : String(first.error),
    });
    return finish(1, "stopped");
  }
  return finish(1, "stopped", { reason: "sender ended unexpectedly" });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: "error", event: "crashed", error: String(err) })}\n`,
    );
    process.exit(1);
  },
);
