import { maskPhone } from "@turnout/domain";
import pino, { type DestinationStream, type Logger } from "pino";
import { sourceMappedStack } from "./support/stack-sources.js";

// Phone numbers and codes are personal data: they never reach the logs in full.
// A phone however it is written: an optional +, then 8 to 15 digits that spaces, dots, dashes, slashes
// or brackets may separate ('0411.000.009', '(04) 1100 0009', '+61-411-000-009').
const PHONE_IN_TEXT = /\+?\(?\d(?:[\s./()-]{0,2}\d){7,14}/g;
// Runs that look like a phone but are not one: an IPv4 address, a date, a time of day.
const NOT_A_PHONE = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\d{4}-\d{2}-\d{2}.*|\d{2}:\d{2}.*)$/;
// A one-time code: six digits standing alone (not part of a longer number, id or decimal).
const CODE_IN_TEXT = /(?<![\d.])\d{6}(?![\d])/g;

/**
 * Replaces anything that looks like a phone number in free text, however it is written, with its
 * masked form, and every six-digit run (a one-time code's shape) with dots.
 */
export function maskPhonesInText(text: string): string {
  return text
    .replace(PHONE_IN_TEXT, (m) => (NOT_A_PHONE.test(m) ? m : maskPhone(m.replace(/[^\d+]/g, ""))))
    .replace(CODE_IN_TEXT, "••••••");
}

/**
 * Masks what a database error quotes from the data it was given: a unique key's values
 * (`Key (phone)=(...)`), a rejected row (`Failing row contains (...)`), a value that failed to parse
 * (`invalid input syntax for type integer: "..."`), and phone numbers anywhere. SQL text stays.
 */
export function maskDataInText(text: string): string {
  return maskPhonesInText(
    redactFailingRow(text.replace(/\bKey (\([^)]*\))=\(.*\)/g, "Key $1=([redacted])"))
      .replace(/: "(?:[^"]|"")*"/g, ': "[redacted]"')
      .replace(/\bvalue "(?:[^"]|"")*"/g, 'value "[redacted]"'),
  );
}

const FAILING_ROW = "Failing row contains (";

/**
 * From the first `Failing row contains (` to the last `)` after it (a row's values may hold brackets
 * and line breaks), found by two scans: the regular expression that did this backtracked from every
 * mention, quadratic in a text of many (issue 28's timing check).
 */
function redactFailingRow(text: string): string {
  const start = text.indexOf(FAILING_ROW);
  const end = text.lastIndexOf(")");
  if (start < 0 || end < start + FAILING_ROW.length) return text;
  return `${text.slice(0, start)}${FAILING_ROW}[redacted])${text.slice(end + 1)}`;
}

const MAX_CAUSE_DEPTH = 5;

type ErrorLike = Error & Record<string, unknown>;

function isErrorLike(value: unknown): value is ErrorLike {
  return value instanceof Error || (typeof value === "object" && value !== null && "message" in value);
}

/**
 * An error as the log shows it. Query errors carry their parameters (drizzle's DrizzleQueryError in
 * its message, `params` and `cause`; PGlite's and node-postgres' errors in `params`, `detail` and
 * `where`), and those parameters are phone numbers, names and towns. So: the SQL text is kept, the
 * parameters are dropped (their count is kept), every other text field is masked with maskDataInText,
 * and object-valued fields other than causes are left out (PGlite's `queryOptions`, a socket).
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (typeof err === "string") return maskDataInText(err);
  if (!isErrorLike(err)) return err;
  const rawMessage = String(err.message ?? "");
  const hasParams = Array.isArray(err.params);
  const message =
    hasParams && typeof err.query === "string" && rawMessage.startsWith("Failed query: ")
      ? `Failed query: ${err.query}\nparams: [redacted]`
      : rawMessage;
  const out: Record<string, unknown> = {
    type: err.constructor?.name || err.name,
    message: maskDataInText(message),
  };
  if (typeof err.stack === "string")
    out.stack = maskDataInText(sourceMappedStack(err.stack.split(rawMessage).join(message)));
  for (const [key, value] of Object.entries(err)) {
    if (key === "message" || key === "stack" || key === "cause" || key in out) continue;
    if (key === "params") out.params = hasParams ? `[${(value as unknown[]).length} redacted]` : "[redacted]";
    else if (typeof value === "string") out[key] = maskDataInText(value);
    else if (typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (key === "errors" && Array.isArray(value) && depth < MAX_CAUSE_DEPTH) {
      out.errors = value.map((e) => serializeError(e, depth + 1));
    }
  }
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(err.cause, depth + 1);
  return out;
}

const MAX_MASK_DEPTH = 6;

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Every string in a log line's plain fields masked (maskDataInText), to a bounded depth. Errors and
 * other objects are left to their serializers (serializeError, req), which pino runs after this.
 */
export function maskLogFields(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskDataInText(value);
  if (depth >= MAX_MASK_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => maskLogFields(v, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskLogFields(v, depth + 1);
  return out;
}

/**
 * The one logger: JSON lines, with credentials, phones and codes redacted, and errors masked. Every
 * message and every string field passes the phone and code masks, so a number written any way, or a
 * code quoted anywhere, never reaches the log (issue 27).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === "string" ? maskDataInText(a) : a));
          return method.apply(this, masked as Parameters<typeof method>);
        },
      },
      formatters: { log: (fields) => maskLogFields(fields) as Record<string, unknown> },
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'req.headers["x-api-key"]',
          'req.headers["x-device-credential"]',
          'req.headers["x-altcha"]',
          "req.headers.apikey",
          "*.phone",
          "*.otp_code",
          "*.activation_code",
          "*.code",
          "*.token",
        ],
        censor: "[redacted]",
      },
      serializers: {
        err: serializeError,
        error: serializeError,
        req: (req: { method?: string; url?: string; ip?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url ? maskPhonesInText(decodeURIComponentSafe(req.url)) : req.url,
          ip: req.ip,
        }),
      },
    },
    destination,
  );
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
