/** One message as the ingest endpoint takes it; also the content of one spool file. */
export type IngestItem = {
  id: string;
  capcode: string;
  message: string;
  timestamp: string;
  source: string;
};

/** A message of a batch the server did not store, by its place in the batch, and why. */
export type Refusal = { index: number; reason: string };

export type PostOutcome =
  /** 2xx with `{success: true}`: every message of the batch is durably stored, except those refused. */
  | { kind: "stored"; refused: Refusal[] }
  /** A 4xx other than 401, 403, 408 and 429: sending this batch again cannot help. */
  | { kind: "rejected"; status: number; detail: string }
  /** 401/403: the key is wrong; nothing will get through until an operator fixes it. */
  | { kind: "unauthorised"; status: number; detail: string }
  /** Anything else (network error, timeout, 408, 429, 5xx, an unexpected reply): try again later. */
  | { kind: "retry"; status?: number; retryAfterMs?: number; reason: string };

export type PostOptions = {
  baseUrl: string;
  key: string;
  items: IngestItem[];
  timeoutMs: number;
  signal?: AbortSignal;
};

const DETAIL_CHARS = 500;

/** The ingest URL for a server base URL (which may carry a path prefix). */
export function ingestUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/ingest/messages`;
}

/** POSTs one batch and classifies the reply; never throws (a stop via `signal` comes back as "retry"). */
export async function postMessages(options: PostOptions): Promise<PostOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await fetch(ingestUrl(options.baseUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${options.key}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ messages: options.items }),
      signal,
    });
    text = await res.text();
  } catch (err) {
    const reason = timeout.aborted ? `no reply within ${options.timeoutMs} ms` : describeError(err);
    return { kind: "retry", reason };
  }

  const status = res.status;
  const detail = serverMessage(text);
  if (status >= 200 && status < 300) {
    // Only a reply that says so counts as stored: a proxy or web page answering 200 must not empty the spool.
    const read = readSuccess(text, options.items);
    if ("refused" in read) return { kind: "stored", refused: read.refused };
    return {
      kind: "retry",
      status,
      reason: `HTTP ${status} ${read.problem}: ${detail}`.slice(0, 2 * DETAIL_CHARS),
    };
  }
  if (status === 401 || status === 403) return { kind: "unauthorised", status, detail };
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return { kind: "rejected", status, detail };
  }
  const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"), text);
  return {
    kind: "retry",
    status,
    reason: `HTTP ${status}: ${detail}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

/**
 * What a 2xx body says: the refused messages of a `{success: true}` reply (none when it lists none), or
 * why it cannot be trusted. A refusal that does not point at a message of this batch (index out of
 * range, another message's id) makes the whole reply untrustworthy: the batch is sent again, which
 * the ids make safe, rather than a message being taken for stored or refused on a guess.
 */
function readSuccess(text: string, items: IngestItem[]): { refused: Refusal[] } | { problem: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { problem: 'without {"success": true}' };
  }
  if (typeof body !== "object" || body === null || (body as { success?: unknown }).success !== true) {
    return { problem: 'without {"success": true}' };
  }
  const listed = (body as { refused?: unknown }).refused;
  if (listed === undefined) return { refused: [] };
  if (!Array.isArray(listed)) return { problem: "with a refused list that is not a list" };
  const refused: Refusal[] = [];
  for (const r of listed) {
    const { index, id, reason } = (typeof r === "object" && r !== null ? r : {}) as {
      index?: unknown;
      id?: unknown;
      reason?: unknown;
    };
    const item = typeof index === "number" && Number.isInteger(index) ? items[index] : undefined;
    if (!item || (typeof id === "string" && id !== item.id)) {
      return { problem: `with a refusal that matches no message of the batch: ${JSON.stringify(r)}` };
    }
    refused.push({
      index: index as number,
      reason: typeof reason === "string" ? reason.slice(0, DETAIL_CHARS) : "refused",
    });
  }
  return { refused };
}

/** The server's `message` field when the body is the spec's error shape, else the start of the body. */
function serverMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null) {
      const { message, errorType } = body as { message?: unknown; errorType?: unknown };
      if (typeof message === "string") {
        return (typeof errorType === "string" ? `${errorType}: ${message}` : message).slice(0, DETAIL_CHARS);
      }
    }
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, DETAIL_CHARS);
}

/** Retry-After in seconds or as an HTTP date; failing that the body's `retryAfter` (seconds, SPEC shape). */
export function parseRetryAfter(header: string | null, body = "", now = Date.now()): number | undefined {
  if (header !== null && header.trim() !== "") {
    const value = header.trim();
    if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  try {
    const parsed: unknown = JSON.parse(body);
    const seconds =
      typeof parsed === "object" && parsed !== null
        ? (parsed as { retryAfter?: unknown }).retryAfter
        : undefined;
    if (typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0)
      return Math.round(seconds * 1000);
  } catch {
    // no usable body
  }
  return undefined;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return `${err.message}: ${typeof code === "string" ? `${code} ` : ""}${cause.message}`;
  }
  return err.message;
}
