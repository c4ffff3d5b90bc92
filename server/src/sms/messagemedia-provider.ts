import { performance } from "node:perf_hooks";
import { maskPhone } from "@turnout/domain";
import type { Logger } from "pino";
import { type SmsProvider, SmsSendError } from "./provider.js";

/**
 * The HTTP provider: MessageMedia's Messages REST API (an Australian SMS gateway, now part of Sinch),
 * as documented in its OpenAPI specification (github.com/messagemedia/documentation, spec/openapi.yaml),
 * its developer reference ('Messages' and 'Authentication') and its Node SDK (messages-nodejs-sdk):
 *
 * - `POST {base}/v1/messages` with `Authorization: Basic base64(api_key:api_secret)` and a JSON body
 *   `{"messages":[{"content","destination_number" (E.164),"format":"SMS", "source_number"?,
 *   "source_number_type"?}]}`; success is `202 Accepted` with the submitted messages, each carrying
 *   a `message_id` (a UUID) and `status: "queued"`.
 * - Errors are HTTP statuses with a JSON body `{"message", "details"?: [...]}`: 400 invalid request,
 *   401 bad credentials, 403 feature disabled, 404 unknown resource, 5xx gateway errors.
 * - `GET {base}/v1/messages/{id}` answers 404 for an unknown id once the credentials are accepted
 *   (401 otherwise): the connection check below uses it with the nil UUID, so it reads nothing real.
 *
 * - Each message may carry `metadata` (up to 10 key/value pairs, keys up to 100 characters, values up
 *   to 256), returned with its delivery reports and in reports. The API has no idempotency key: a
 *   request sent twice is two messages. So each message carries the queue row's key as metadata
 *   `turnout_sms`, and before the queue sends a row a second time (`findSent`) the provider asks the
 *   Reporting API for it: `POST {base}/v2-preview/reporting/messages/detail` with a time window
 *   (`start_date`, `end_date`), `direction: "outbound"`, `destination` and `metadata_key` /
 *   `metadata_value`, answering `{"messages": [{message_id, metadata, ...}], "pagination"}`. Found:
 *   the row is marked sent with that message id instead of paging the user again. The Reporting API
 *   is a preview and does not say how soon a message shows up in it; a lookup that fails (or an account
 *   without reporting) sends the message again, as before: a late duplicate is better than a lost page.
 *   `GET /v1/messages/{id}` needs the message id, which a worker that died before recording it never
 *   wrote down, so it cannot serve here.
 *
 * How failures map onto the queue: 5xx, 408, 429 (waiting as long as `Retry-After` says), network
 * errors and our own request time-out are retryable; any other 4xx is not (the same request would be
 * refused again). A 2xx whose body cannot be read still counts as sent: the gateway took the message,
 * and sending it again would page the user twice.
 */
export type MessageMediaOptions = {
  /** API base, e.g. https://api.messagemedia.com (APAC); a stand-in server in tests. */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** Sender shown on the phone: an alpha tag (e.g. 'Turnout') or a number registered to the account. */
  sender: string | null;
  /** Per-request limit. The queue renews its claim while a request runs, so it may exceed the lease. */
  timeoutMs: number;
  logger: Logger;
};

/** The result of the connection check shown on the admin SMS card. */
export type ProviderCheck = {
  status: "connected" | "error" | "disconnected";
  checkedAt: Date;
  responseTimeMs: number | null;
  detail: string | null;
};

export type CheckableSmsProvider = SmsProvider & {
  /** Asks the provider whether it is reachable and accepts our credentials. Never throws. */
  check(): Promise<ProviderCheck>;
  /** The configured sender (alpha tag or number), if any. */
  readonly sender: string | null;
};

const NIL_UUID = "00000000-0000-0000-0000-000000000000";
/** The metadata key that carries the queue row's key (see queue.ts smsKey). */
export const METADATA_KEY = "turnout_sms";
const MAX_RETRY_AFTER_SECONDS = 3600;

/** Creates the MessageMedia provider. */
export function createMessageMediaProvider(options: MessageMediaOptions): CheckableSmsProvider {
  const base = options.baseUrl.replace(/\/+$/, "");
  const authorization = `Basic ${Buffer.from(`${options.apiKey}:${options.apiSecret}`, "utf8").toString("base64")}`;
  const logger = options.logger.child({ provider: "messagemedia" });

  async function request(method: "GET" | "POST", path: string, body?: unknown): Promise<Response> {
    return fetch(`${base}${path}`, {
      method,
      headers: {
        authorization,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "error",
    });
  }

  return {
    name: "messagemedia",
    sender: options.sender,

    async send({ to, body, key }) {
      const message: Record<string, unknown> = { content: body, destination_number: to, format: "SMS" };
      if (key) message.metadata = { [METADATA_KEY]: key };
      if (options.sender) {
        message.source_number = options.sender;
        message.source_number_type = options.sender.startsWith("+") ? "INTERNATIONAL" : "ALPHANUMERIC";
      }
      const started = performance.now();
      let response: Response;
      try {
        response = await request("POST", "/v1/messages", { messages: [message] });
      } catch (error) {
        throw new SmsSendError(
          `MessageMedia request failed: ${describeFetchError(error, options.timeoutMs)}`,
          {
            retryable: true,
            cause: error,
          },
        );
      }
      const text = await response.text().catch(() => "");
      const ms = Math.round(performance.now() - started);
      if (response.ok) {
        const id = messageIdOf(text);
        if (!id)
          logger.warn({ status: response.status, to: maskPhone(to) }, "sms accepted without a message_id");
        logger.debug({ status: response.status, ms, to: maskPhone(to) }, "sms accepted by MessageMedia");
        return id ? { providerMessageId: id } : {};
      }
      const reason = `MessageMedia answered ${response.status}${errorMessageOf(text)}`;
      const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
      const retryAfterSeconds = retryable ? parseRetryAfter(response.headers.get("retry-after")) : undefined;
      throw new SmsSendError(reason, {
        retryable,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
    },

    async findSent({ to, key }, since) {
      const day = 86_400_000;
      // A day either side: the window is only a filter, the key is what matches, and the account's
      // time zone cannot shift it out of range.
      const response = await request("POST", "/v2-preview/reporting/messages/detail", {
        start_date: new Date(since.getTime() - day).toISOString(),
        end_date: new Date(Date.now() + day).toISOString(),
        timezone: "UTC",
        direction: "outbound",
        destination: to,
        metadata_key: METADATA_KEY,
        metadata_value: key,
        page: 0,
        page_size: 10,
      });
      const text = await response.text().catch(() => "");
      if (!response.ok)
        throw new Error(`MessageMedia report answered ${response.status}${errorMessageOf(text)}`);
      const id = reportedMessageIdOf(text, key);
      return id ? { providerMessageId: id } : null;
    },

    async check() {
      const started = performance.now();
      const checkedAt = new Date();
      try {
        const response = await request("GET", `/v1/messages/${NIL_UUID}`);
        await response.arrayBuffer().catch(() => undefined);
        const responseTimeMs = Math.round(performance.now() - started);
        if (response.status === 404 || response.ok) {
          return { status: "connected", checkedAt, responseTimeMs, detail: null };
        }
        const detail =
          response.status === 401 || response.status === 403
            ? `credentials refused (${response.status})`
            : `unexpected answer ${response.status}`;
        return { status: "error", checkedAt, responseTimeMs, detail };
      } catch (error) {
        return {
          status: "disconnected",
          checkedAt,
          responseTimeMs: null,
          detail: describeFetchError(error, options.timeoutMs),
        };
      }
    },
  };
}

function messageIdOf(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as { messages?: { message_id?: unknown }[] };
    const id = parsed.messages?.[0]?.message_id;
    return typeof id === "string" && id ? id : null;
  } catch {
    return null;
  }
}

/** The message id of the reported message that carries `key` (a record without metadata trusts the filter). */
function reportedMessageIdOf(text: string, key: string): string | null {
  try {
    const parsed = JSON.parse(text) as { messages?: { message_id?: unknown; metadata?: unknown }[] };
    for (const m of parsed.messages ?? []) {
      const metadata = m.metadata as Record<string, unknown> | undefined;
      if (metadata && typeof metadata === "object" && metadata[METADATA_KEY] !== key) continue;
      if (typeof m.message_id === "string" && m.message_id) return m.message_id;
    }
    return null;
  } catch {
    return null;
  }
}

/** ': <message> (<details>)' from MessageMedia's error body, or '' when there is none. */
function errorMessageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; details?: unknown };
    const message = typeof parsed.message === "string" ? parsed.message : "";
    const details = Array.isArray(parsed.details) ? parsed.details.filter((d) => typeof d === "string") : [];
    const all = [message, details.join("; ")].filter(Boolean);
    return all.length ? `: ${all.join(" - ").slice(0, 300)}` : "";
  } catch {
    return "";
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), capped at an hour. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(error), cause].filter(Boolean).join(": ");
}
