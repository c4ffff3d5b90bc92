import { MESSAGES, parseRetryAfterHeader, REQUEST_TIMEOUT_MS } from "@turnout/domain";
import { config } from "../config";
import { collectDeviceInfo, getDeviceId } from "./device";
import { ApiError, CLIENT_ERROR_TYPES } from "./errors";
import { isProofOfWorkRequest, PROOF_OF_WORK_HEADER, solveProofOfWork } from "./proof-of-work";
import { emitSessionNotice, type SessionNotice } from "./session-events";
import { storage } from "./storage";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: HttpMethod;
  /** A plain value is sent as JSON; FormData is sent as multipart. */
  body?: unknown;
  query?: Record<string, QueryValue>;
  /** Sign-in calls: a 401 there is an answer to show, not a lost session. */
  ignoreUnauthorized?: boolean;
  /** The caller explains a 403 itself (the job popup), so the general dialog stays away. */
  handlesForbidden?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Extra headers for this call (a sign-in call's device credential). */
  headers?: Record<string, string>;
}

const TIMEOUT_MESSAGE = "The request timed out. Please check your connection and try again.";
const NETWORK_MESSAGE = "Unable to reach the server. Please check your connection and try again.";
/**
 * Why the server refused the token (the 401 body's `reason`): the dialog's kind and text. A session
 * someone ended on purpose is "kicked"; anything unknown reads as expired (SPEC 8).
 */
const SESSION_END_BY_REASON: Record<string, SessionNotice> = {
  expired: { kind: "expired", message: MESSAGES.SESSION_EXPIRED },
  invalid: { kind: "expired", message: MESSAGES.SESSION_INVALID },
  terminated: { kind: "kicked", message: MESSAGES.SESSION_INVALID },
  logged_out_by_admin: { kind: "kicked", message: MESSAGES.LOGGED_OUT_BY_ADMIN },
};

/** The Session Ended notice for a reason the server gave (a 401 body or the live channel's session-ended). */
export function sessionNoticeForReason(reason: unknown): SessionNotice {
  if (typeof reason === "string" && Object.hasOwn(SESSION_END_BY_REASON, reason)) {
    return SESSION_END_BY_REASON[reason]!;
  }
  return { kind: "expired", message: MESSAGES.SESSION_EXPIRED };
}

let sessionEndNotified = false;

/** Allow the next 401 to notify again (tests, and after a fresh sign-in without reload). */
export function resetSessionEndNotice(): void {
  sessionEndNotified = false;
}

/** The full address of an /api path with its query (empty values left out). */
export function buildUrl(path: string, query: Record<string, QueryValue> | undefined): string {
  const base = `${config.apiBaseUrl}${path.startsWith("/") ? path : `/${path}`}`;
  if (!query) return base;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}

/** Header values must be Latin-1: escape anything else inside the JSON. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The Authorization header's value for the stored session, or null when signed out. */
export function sessionAuthorization(): string | null {
  const token = storage.getToken();
  return token ? `Bearer ${token}` : null;
}

/**
 * The headers every call carries: Accept, X-Device-ID, X-Device-Info, the bearer token when signed in,
 * and Content-Type for JSON bodies (FormData sets its own multipart boundary).
 */
export async function buildHeaders(body: unknown): Promise<Headers> {
  const headers = new Headers({ Accept: "application/json" });
  const deviceId = await getDeviceId();
  headers.set("X-Device-ID", deviceId);
  headers.set("X-Device-Info", asciiJson(collectDeviceInfo(deviceId)));
  const authorization = sessionAuthorization();
  if (authorization) headers.set("Authorization", authorization);
  if (body !== undefined && !(body instanceof FormData)) headers.set("Content-Type", "application/json");
  return headers;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => "");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function retryAfterOf(response: Response, body: Record<string, unknown> | undefined): number | undefined {
  const fromHeader = parseRetryAfterHeader(response.headers.get("Retry-After"), Date.now());
  if (fromHeader !== null && fromHeader !== undefined) return fromHeader;
  const fromBody = body?.retryAfter;
  if (typeof fromBody === "number" && Number.isFinite(fromBody)) return fromBody;
  if (typeof fromBody === "string" && /^\d+$/.test(fromBody.trim())) return Number(fromBody);
  return undefined;
}

function toApiError(response: Response, parsed: unknown): ApiError {
  const body = asRecord(parsed);
  const serverMessage =
    (typeof body?.message === "string" && body.message) ||
    (typeof body?.error === "string" && body.error) ||
    (typeof parsed === "string" && parsed.length < 300 ? parsed : "") ||
    undefined;
  const errorType = typeof body?.errorType === "string" ? body.errorType : CLIENT_ERROR_TYPES.api;
  return new ApiError({
    status: response.status,
    errorType,
    message: serverMessage ?? (response.statusText || `Request failed (${response.status})`),
    serverMessage,
    retryAfter: response.status === 429 ? retryAfterOf(response, body) : undefined,
    body,
  });
}

function noticeFor(
  error: ApiError,
  options: Pick<RequestOptions, "ignoreUnauthorized" | "handlesForbidden">,
): void {
  if (error.status === 401 && !options.ignoreUnauthorized) {
    if (sessionEndNotified) return;
    sessionEndNotified = true;
    emitSessionNotice(sessionNoticeForReason(error.body?.reason));
  } else if (error.status === 403 && !options.handlesForbidden) {
    emitSessionNotice({ kind: "forbidden", message: MESSAGES.NOT_AUTHORIZED });
  }
}

/**
 * A non-2xx answer to a call made outside apiRequest (an upload over XMLHttpRequest, for its
 * progress) turned into the same ApiError, with the same session notices (401, 403).
 */
export function apiFailure(
  response: Response,
  parsed: unknown,
  options: Pick<RequestOptions, "ignoreUnauthorized" | "handlesForbidden"> = {},
): ApiError {
  const error = toApiError(response, parsed);
  noticeFor(error, options);
  return error;
}

/** The ApiError of a call that got no answer at all (offline, server unreachable). */
export function networkFailure(): ApiError {
  return new ApiError({ status: 0, errorType: CLIENT_ERROR_TYPES.network, message: NETWORK_MESSAGE });
}

type EarlyAnswer = { response: Response; parsed: unknown };

/** GET answers asked for at start, before the screen that reads them exists (fetchEarly). */
const earlyAnswers = new Map<
  string,
  { askedAt: number; token: string | null; answer: Promise<EarlyAnswer | null> }
>();

/** An early answer older than this is not used: its screen asks again. */
const EARLY_ANSWER_MAX_AGE_MS = 10_000;

/**
 * Starts a GET now, while the code of the screen that needs it is still downloading: the first call of
 * apiRequest for the same address (within EARLY_ANSWER_MAX_AGE_MS, without extra headers) takes its
 * answer instead of asking again (issue 31: the feed's first page no longer waits for the dashboard's
 * code). Errors and session notices are those of that call: the answer is only read here, and a
 * request that got no answer is simply made again.
 */
export function fetchEarly(path: string, query?: Record<string, QueryValue>): void {
  const url = buildUrl(path, query);
  if (earlyAnswers.has(url)) return;
  const answer = buildHeaders(undefined)
    .then((headers) => fetch(url, { headers }))
    .then(async (response) => ({ response, parsed: await readBody(response) }))
    .catch(() => null);
  earlyAnswers.set(url, { askedAt: Date.now(), token: storage.getToken(), answer });
}

/** Forgets every early answer not taken yet (tests). */
export function resetEarlyAnswers(): void {
  earlyAnswers.clear();
}

/**
 * The early answer for this address, once; null when there is none, it failed, it is too old or it was
 * asked for with another session's token.
 */
async function takeEarlyAnswer(url: string, signal: AbortSignal): Promise<EarlyAnswer | null> {
  const early = earlyAnswers.get(url);
  if (!early) return null;
  earlyAnswers.delete(url);
  if (Date.now() - early.askedAt > EARLY_ANSWER_MAX_AGE_MS || early.token !== storage.getToken()) return null;
  if (signal.aborted) throw signal.reason;
  return new Promise((resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    void early.answer.then(resolve);
  });
}

/**
 * The one HTTP client: base /api, a 30 s timeout, bearer token, device headers, and every
 * non-2xx turned into an ApiError (401 and 403 also notify the app, see RequestOptions).
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await sendRequest<T>(path, options);
  } catch (error) {
    // Under attack the server asks anonymous callers to prove some work first (issue 27): solve, resend.
    if (!(error instanceof ApiError) || !isProofOfWorkRequest(error.status, error.body)) throw error;
    const solution = await solveProofOfWork(error.body.challenge, options.signal);
    return sendRequest<T>(path, {
      ...options,
      headers: { ...options.headers, [PROOF_OF_WORK_HEADER]: solution },
    });
  }
}

async function sendRequest<T>(path: string, options: RequestOptions): Promise<T> {
  const { method = "GET", body, query, signal, timeoutMs = REQUEST_TIMEOUT_MS } = options;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const forwardAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) forwardAbort();
  signal?.addEventListener("abort", forwardAbort, { once: true });

  let response: Response;
  let parsed: unknown;
  try {
    const url = buildUrl(path, query);
    const early = method === "GET" && !options.headers ? await takeEarlyAnswer(url, controller.signal) : null;
    if (early) {
      ({ response, parsed } = early);
    } else {
      const headers = await buildHeaders(body);
      for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
        signal: controller.signal,
      });
      parsed = await readBody(response);
    }
  } catch (error) {
    if (timedOut) {
      throw new ApiError({ status: 0, errorType: CLIENT_ERROR_TYPES.network, message: TIMEOUT_MESSAGE });
    }
    if (signal?.aborted) throw error;
    throw networkFailure();
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forwardAbort);
  }

  if (!response.ok) throw apiFailure(response, parsed, options);
  return parsed as T;
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, "method" | "body">) =>
    apiRequest<T>(path, { ...options, method: "GET" }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    apiRequest<T>(path, { ...options, method: "POST", body }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    apiRequest<T>(path, { ...options, method: "PUT", body }),
  patch: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "method" | "body">) =>
    apiRequest<T>(path, { ...options, method: "PATCH", body }),
  delete: <T>(path: string, options?: Omit<RequestOptions, "method" | "body">) =>
    apiRequest<T>(path, { ...options, method: "DELETE" }),
};
