import { maskPhone } from "@turnout/domain";
import pino, { type DestinationStream, type Logger } from "pino";

// Phone numbers and codes are personal data: they never reach the logs in full.
const PHONE_IN_TEXT = /\+?\d[\d\s-]{6,}\d/g;

/** Replaces anything that looks like a phone number in free text with its masked form. */
export function maskPhonesInText(text: string): string {
  return text.replace(PHONE_IN_TEXT, (m) => maskPhone(m.replace(/[\s-]/g, "")));
}

/**
 * Masks what a database error quotes from the data it was given: a unique key's values
 * (`Key (phone)=(...)`), a rejected row (`Failing row contains (...)`), a value that failed to parse
 * (`invalid input syntax for type integer: "..."`), and phone numbers anywhere. SQL text stays.
 */
export function maskDataInText(text: string): string {
  return maskPhonesInText(
    text
      .replace(/\bKey (\([^)]*\))=\(.*\)/g, "Key $1=([redacted])")
      .replace(/Failing row contains \([\s\S]*\)/g, "Failing row contains ([redacted])")
      .replace(/: "(?:[^"]|"")*"/g, ': "[redacted]"'),
  );
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
  if (typeof err.stack === "string") out.stack = maskDataInText(err.stack.split(rawMessage).join(message));
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

/** The one logger: JSON lines, with credentials, phones and codes redacted, and errors masked. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'req.headers["x-api-key"]',
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
