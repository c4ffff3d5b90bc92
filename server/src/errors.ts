import type { ErrorType } from "@turnout/domain";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { isConnectionFailure, isStorageFailure } from "./db/reachability.js";
import { serializeError } from "./logger.js";
import { type SystemLogEntry, writeSystemLog } from "./system-log.js";

/** A failure a client can act on: it leaves the server as `{ success: false, message, errorType }`. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: ErrorType,
    message: string,
    /** Extra fields for the reply body, e.g. `retryAfter` or `sessions`. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new AppError(400, "validation_error", message, extra);
export const unauthorized = (message = "Authentication required") =>
  new AppError(401, "unauthorized", message);
export const forbidden = (message = "You do not have permission to do this.") =>
  new AppError(403, "forbidden", message);
export const notFound = (message = "Not found") => new AppError(404, "not_found", message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new AppError(409, "conflict", message, extra);

/** How long a client is asked to wait before retrying while the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A 503 with Retry-After: the service cannot answer now (the database is out of reach) and will again. */
export const serviceUnavailable = (
  message = "The service is temporarily unavailable. Please try again shortly.",
) => new AppError(503, "service_unavailable", message, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });

/** A 429 with the retry time in the body (`retryAfter`, seconds) and in the Retry-After header. */
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new AppError(429, "rate_limited", message, { retryAfter: Math.max(1, Math.ceil(retryAfterSeconds)) });

type FieldError = { field: string; message: string };

/**
 * One error shape for every 4xx/5xx (unknown routes: see web.ts): AppErrors as they are, schema failures as 400 with the failing
 * fields, unique-key clashes as 409, client errors Fastify raises (bad JSON, body too large, wrong
 * content type) with their status, a database out of reach as 503 with Retry-After (logged once per
 * outage by the pool, not per request), and anything else as a logged, generic 500 without internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendAppError(reply, error);
    if (request.raw.destroyed && !request.raw.complete) {
      // The client went away mid-request (an upload cancelled, a phone out of coverage): its socket's
      // ECONNRESET says nothing about the database, and nobody is left to answer.
      request.log.info({ reason: error.message }, "request aborted by the client");
      return reply.status(400).send({
        success: false,
        message: "The request was cut off before it was complete.",
        errorType: "validation_error",
      });
    }
    if (isMalformedMultipart(error)) {
      return reply.status(400).send({
        success: false,
        message: "The upload is not a valid form: send it again as multipart/form-data.",
        errorType: "validation_error",
      });
    }
    if (isConnectionFailure(error)) {
      app.dbReachability.failed(error);
      return sendAppError(
        reply,
        serviceUnavailable(
          isStorageFailure(error)
            ? "The server cannot write: its storage is full. Please try again later."
            : "The database is unreachable. Please try again in a few seconds.",
        ),
      );
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const fields: FieldError[] = error.validation.map((v) => ({
        field: [error.validationContext, ...String(v.instancePath).split("/").filter(Boolean)].join("."),
        message: v.message ?? "is invalid",
      }));
      const first = fields[0];
      const message = first ? `Invalid ${first.field}: ${first.message}` : "Invalid request";
      return reply.status(400).send({ success: false, message, errorType: "validation_error", fields });
    }
    if (isDataException(error)) {
      // A value the schemas let through but the database refuses (out of range, unstorable): the
      // request's fault, so a 400; logged so the schema that should have caught it gets fixed.
      request.log.warn({ err: error }, "database refused a request value");
      return reply.status(400).send({
        success: false,
        message: "A value in the request is out of range or cannot be stored.",
        errorType: "validation_error",
      });
    }
    if (isUniqueViolation(error)) {
      return reply
        .status(409)
        .send({ success: false, message: "That already exists.", errorType: "conflict" });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({
        success: false,
        message: clientErrorMessage(error, status),
        errorType: clientErrorType(status),
      });
    }
    request.log.error({ err: error }, "unhandled error");
    void writeSystemLog(app.db, serverErrorEntry(error, request), (e) =>
      request.log.error({ err: e }, "system log write failed"),
    );
    return reply.status(500).send({
      success: false,
      message: "Something went wrong. Please try again.",
      errorType: "internal_error",
    });
  });
}

function sendAppError(reply: FastifyReply, error: AppError): FastifyReply {
  if ((error.status === 429 || error.status === 503) && typeof error.extra.retryAfter === "number") {
    reply.header("Retry-After", String(error.extra.retryAfter));
  }
  return reply
    .status(error.status)
    .send({ success: false, message: error.message, errorType: error.errorType, ...error.extra });
}

/** An error's message as the log shows it: a failed query's SQL without its parameters (message texts, phones). */
function loggedMessage(error: unknown): string {
  return String((serializeError(error) as { message?: unknown }).message ?? "");
}

/** The system log's record of a 500: the route and the error's name and message (masked by the writer), no stack. */
function serverErrorEntry(error: FastifyError, request: FastifyRequest): SystemLogEntry {
  return {
    level: "error",
    category: "server",
    message: `Unhandled error on ${request.method} ${request.routeOptions.url ?? "unknown route"}: ${error.name}: ${loggedMessage(error)}`,
    details: {
      method: request.method,
      route: request.routeOptions.url ?? null,
      error: error.name,
      code: error.code ?? null,
    },
    ip: request.ip,
  };
}

/** The SQLSTATE of a database error, also when the query builder wraps it (`cause`). */
function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === "string" ? e.code : e?.cause?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * The multipart parser's (busboy's) complaints about the body itself: no or an unusable boundary, a
 * body or part cut off before its end. It raises them as plain errors without a code, so they are known
 * by their words; each is the client's doing, never the server's.
 */
const MALFORMED_MULTIPART = [
  /^Multipart: Boundary not found$/,
  /^Boundary required$/,
  /^Unexpected end of multipart data$/,
  /^(Part|Preamble) terminated early due to unexpected end of multipart data$/,
  /^The needle cannot (be an empty String\/Buffer|have a length bigger than 256)\.$/,
  /^Unsupported Content-Type\.$/,
];

function isMalformedMultipart(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === undefined &&
    typeof message === "string" &&
    MALFORMED_MULTIPART.some((pattern) => pattern.test(message))
  );
}

function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === "23505";
}

/** SQLSTATE class 22, data exception: a value out of range, malformed or not storable. */
function isDataException(error: unknown): boolean {
  return sqlState(error)?.startsWith("22") ?? false;
}

function clientErrorType(status: number): ErrorType {
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 429) return "rate_limited";
  return "validation_error";
}

function clientErrorMessage(error: FastifyError, status: number): string {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request body is not valid JSON.";
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "The request body is too large.";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Unsupported content type.";
    default:
      return status === 413 ? "The request body is too large." : error.message;
  }
}
