import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A local stand-in for MessageMedia's Messages API (the parts the HTTP provider uses), for tests and
 * benchmarks: it listens on 127.0.0.1 on a random port, checks Basic auth and the request body as the
 * real API documents them, and answers `202` with `message_id`s. A script makes it fail on purpose.
 */
export type StandInOutcome =
  /** Accept the message (the default when the script is empty). */
  | "accept"
  /** Never answer: the client's time-out has to fire. The socket is released when the stand-in closes. */
  | "hang"
  /** Close the connection without an answer. */
  | "drop"
  /** Answer with this status (and optional Retry-After header and body). */
  | { status: number; retryAfter?: string; body?: unknown };

export type AcceptedMessage = {
  message_id: string;
  destination_number: string;
  content: string;
  source_number?: string;
  source_number_type?: string;
  metadata?: Record<string, string>;
  at: Date;
};

export type MessageMediaStandIn = {
  /** Base URL to give the provider, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Messages accepted so far, oldest first. */
  accepted: AcceptedMessage[];
  /** POST /v1/messages requests received, whatever their outcome. */
  sendAttempts: () => number;
  /** Report lookups (POST /v2-preview/reporting/messages/detail) received. */
  reportLookups: () => number;
  /** Makes report lookups answer this status (as an account without reporting would), or normally (null). */
  failReports: (status: number | null) => void;
  /** Queues outcomes for the next POST /v1/messages requests, in order. */
  script: (...outcomes: StandInOutcome[]) => void;
  /** Stops listening and releases hung requests. */
  close: () => Promise<void>;
};

const E164 = /^\+[1-9]\d{6,14}$/;

/** Starts the stand-in with the credentials it will accept. */
export async function startMessageMediaStandIn(credentials: {
  apiKey: string;
  apiSecret: string;
}): Promise<MessageMediaStandIn> {
  const expected = `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiSecret}`).toString("base64")}`;
  const accepted: AcceptedMessage[] = [];
  const script: StandInOutcome[] = [];
  const sockets = new Set<Socket>();
  let attempts = 0;
  let lookups = 0;
  let reportFailure: number | null = null;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    if (req.headers.authorization !== expected) {
      json(res, 401, { message: "Unauthorized" });
      return;
    }
    const url = new URL(req.url ?? "/", "http://stand-in");
    const single = /^\/v1\/messages\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && single) {
      const found = accepted.find((m) => m.message_id === single[1]);
      if (!found) json(res, 404, { message: "Resource not found" });
      else json(res, 200, { ...found, format: "SMS", status: "enroute", at: undefined });
      return;
    }
    if (req.method === "POST" && url.pathname === "/v2-preview/reporting/messages/detail") {
      lookups += 1;
      if (reportFailure !== null) {
        json(res, reportFailure, { message: `Stand-in report failure ${reportFailure}` });
        return;
      }
      json(res, 200, report(accepted, raw));
      return;
    }
    if (req.method !== "POST" || url.pathname !== "/v1/messages") {
      json(res, 404, { message: "Resource not found" });
      return;
    }
    attempts += 1;
    const outcome = script.shift() ?? "accept";
    if (outcome === "hang") return;
    if (outcome === "drop") {
      req.socket.destroy();
      return;
    }
    if (outcome !== "accept") {
      json(res, outcome.status, outcome.body ?? { message: `Stand-in failure ${outcome.status}` }, {
        ...(outcome.retryAfter ? { "retry-after": outcome.retryAfter } : {}),
      });
      return;
    }
    let body: { messages?: unknown };
    try {
      body = JSON.parse(raw) as { messages?: unknown };
    } catch {
      json(res, 400, { message: "Invalid request", details: ["Request body is not valid JSON"] });
      return;
    }
    const details = validate(body.messages);
    if (details.length) {
      json(res, 400, { message: "Invalid request", details });
      return;
    }
    const submitted = (body.messages as Record<string, string>[]).map((m) => {
      const message: AcceptedMessage = {
        message_id: randomUUID(),
        destination_number: m.destination_number!,
        content: m.content!,
        ...(m.source_number ? { source_number: m.source_number } : {}),
        ...(m.source_number_type ? { source_number_type: m.source_number_type } : {}),
        ...(m.metadata ? { metadata: m.metadata as unknown as Record<string, string> } : {}),
        at: new Date(),
      };
      accepted.push(message);
      return message;
    });
    json(res, 202, {
      messages: submitted.map(({ at: _at, ...m }) => ({
        ...m,
        format: "SMS",
        delivery_report: false,
        status: "queued",
      })),
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    sendAttempts: () => attempts,
    reportLookups: () => lookups,
    failReports: (status) => {
      reportFailure = status;
    },
    script: (...outcomes) => script.push(...outcomes),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The checks the real API documents for a send request: 1 to 100 messages, content, E.164 number. */
function validate(messages: unknown): string[] {
  if (!Array.isArray(messages) || messages.length === 0)
    return ["messages: at least one message is required"];
  if (messages.length > 100) return ["messages: at most 100 messages per request"];
  const details: string[] = [];
  messages.forEach((m: Record<string, unknown>, i) => {
    if (typeof m?.content !== "string" || m.content.length === 0 || m.content.length > 5000) {
      details.push(`messages[${i}].content: must be 1 to 5000 characters`);
    }
    if (typeof m?.destination_number !== "string" || !E164.test(m.destination_number)) {
      details.push(`messages[${i}].destination_number: must be an E.164 number`);
    }
    if (m?.format !== undefined && !["SMS", "MMS", "TTS"].includes(String(m.format))) {
      details.push(`messages[${i}].format: must be SMS, MMS or TTS`);
    }
    if (m?.metadata !== undefined && !validMetadata(m.metadata)) {
      details.push(`messages[${i}].metadata: up to 10 pairs, keys up to 100 and values up to 256 characters`);
    }
  });
  return details;
}

function validMetadata(metadata: unknown): boolean {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return false;
  const entries = Object.entries(metadata);
  return (
    entries.length <= 10 &&
    entries.every(([k, v]) => k.length >= 1 && k.length <= 100 && typeof v === "string" && v.length <= 256)
  );
}

/**
 * The detail report as the Reporting API documents it, for the filters the provider sends: the time
 * window (required), destination and a metadata key and value ("containing this value": a substring).
 */
function report(accepted: AcceptedMessage[], raw: string): { messages: unknown[]; pagination: unknown } {
  let filter: Record<string, unknown>;
  try {
    filter = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    filter = {};
  }
  const from = Date.parse(String(filter.start_date));
  const to = Date.parse(String(filter.end_date));
  const key = typeof filter.metadata_key === "string" ? filter.metadata_key : null;
  const value = typeof filter.metadata_value === "string" ? filter.metadata_value : null;
  const messages = accepted
    .filter((m) => m.at.getTime() >= from && m.at.getTime() <= to)
    .filter((m) => typeof filter.destination !== "string" || m.destination_number === filter.destination)
    .filter(
      (m) => key === null || (m.metadata?.[key] !== undefined && m.metadata[key]!.includes(value ?? "")),
    )
    .map((m) => ({
      message_id: m.message_id,
      format: "SMS",
      timestamp: m.at.toISOString(),
      direction: "outbound",
      status: "delivered",
      destination_address: m.destination_number,
      content: m.content,
      ...(m.metadata ? { metadata: m.metadata } : {}),
    }));
  return { messages, pagination: { page: 0, page_size: messages.length } };
}
