export type LogLevel = "debug" | "info" | "warn" | "error";

export type LogFields = Record<string, unknown>;

/** One JSON line per event: `{"time","level","event",...fields}`. */
export type Log = Record<LogLevel, (event: string, fields?: LogFields) => void>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function isLogLevel(value: string): value is LogLevel {
  return value in RANK;
}

/** A JSON-lines logger writing through `write` (the reader passes stderr). */
export function createLog(write: (line: string) => void, level: LogLevel = "info"): Log {
  const at =
    (lineLevel: LogLevel) =>
    (event: string, fields: LogFields = {}): void => {
      if (RANK[lineLevel] < RANK[level]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: lineLevel, event, ...fields })}\n`);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLog: Log = createLog(() => {}, "error");

/** Pager texts are operational data: info lines carry only their start and length. */
export function preview(text: string, chars = 20): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}…`;
}
