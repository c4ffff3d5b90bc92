/*
 * Test helper: a local stand-in for POST /api/ingest/messages that a test can switch between behaviours.
 * It stores each id once, as the real endpoint promises.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { IngestItem } from "../reader/ingest-client.js";

export type StandInMode = "ok" | "500" | "503" | "429" | "slow" | "400" | "401" | "404" | "408" | "html";

export type StandInRequest = { at: number; status: number; ids: string[] };

export type StandIn = {
  readonly url: string;
  readonly port: number;
  mode: StandInMode;
  retryAfter: string;
  slowMs: number;
  /** In "ok" mode, a batch holding a message for which this returns true is answered 400. */
  rejectIf: (item: IngestItem) => boolean;
  /** In "ok" mode, a batch holding a message for which this returns true is answered 500 (a server bug). */
  failIf: (item: IngestItem) => boolean;
  /**
   * In "ok" mode, a message for which this returns a reason is not stored and is listed as refused in
   * the 2xx reply, as the real endpoint does with a message that fails validation.
   */
  refuseIf: (item: IngestItem) => string | null;
  readonly requests: StandInRequest[];
  /** Heartbeats received with the right key (issue 33), in order; not counted in `requests`. */
  readonly heartbeats: Record<string, unknown>[];
  /** Every id stored, once, in the order first stored. */
  readonly storedIds: string[];
  readonly stored: Map<string, IngestItem>;
  /** Ids of every batch answered 2xx, duplicates included. */
  readonly acceptedIds: string[];
  /** Resolves once `count` distinct ids are stored. */
  waitForStored(count: number, timeoutMs?: number): Promise<void>;
  /** Stops listening and drops open connections: clients get "connection refused". */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
};

export async function startStandIn(key: string): Promise<StandIn> {
  const requests: StandInRequest[] = [];
  const heartbeats: Record<string, unknown>[] = [];
  const storedIds: string[] = [];
  const stored = new Map<string, IngestItem>();
  const acceptedIds: string[] = [];
  let server: Server | undefined;
  let port = 0;

  const state = {
    mode: "ok" as StandInMode,
    retryAfter: "1",
    slowMs: 2000,
    rejectIf: (_item: IngestItem) => false,
    failIf: (_item: IngestItem) => false,
    refuseIf: (_item: IngestItem): string | null => null,
  };

  function store(items: IngestItem[]): void {
    for (const item of items) {
      if (!stored.has(item.id)) {
        stored.set(item.id, item);
        storedIds.push(item.id);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (
      status: number,
      body: unknown,
      headers: Record<string, string> = {},
      ids: string[] = [],
    ) => {
      requests.push({ at: Date.now(), status, ids });
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.method === "POST" && req.url === "/api/ingest/heartbeat") {
      const ok = req.headers.authorization === `Bearer ${key}`;
      if (ok) heartbeats.push(JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"));
      if (!res.destroyed) {
        res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
        res.end(JSON.stringify({ success: ok }));
      }
      return;
    }
    if (req.method !== "POST" || req.url !== "/api/ingest/messages") {
      send(404, { success: false, message: "Not found", errorType: "not_found" });
      return;
    }
    if (req.headers.authorization !== `Bearer ${key}` || state.mode === "401") {
      send(401, { success: false, message: "Invalid API key", errorType: "unauthorized" });
      return;
    }
    let items: IngestItem[];
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages?: unknown };
      if (!Array.isArray(body.messages) || body.messages.length === 0 || body.messages.length > 1000) {
        throw new Error("messages must hold 1 to 1000 items");
      }
      items = body.messages as IngestItem[];
      for (const m of items) {
        const ok =
          typeof m.id === "string" &&
          /^\d{7,10}$/.test(m.capcode) &&
          typeof m.message === "string" &&
          !Number.isNaN(Date.parse(m.timestamp)) &&
          typeof m.source === "string";
        if (!ok) throw new Error(`bad message ${JSON.stringify(m)}`);
      }
    } catch (err) {
      send(400, { success: false, message: String(err), errorType: "validation_error" });
      return;
    }
    const ids = items.map((m) => m.id);
    switch (state.mode) {
      case "500":
        send(500, { success: false, message: "Internal error", errorType: "internal" }, {}, ids);
        return;
      case "503":
        send(
          503,
          { success: false, message: "The database is unreachable.", errorType: "service_unavailable" },
          { "retry-after": state.retryAfter },
          ids,
        );
        return;
      case "429":
        send(
          429,
          { success: false, message: "Too many requests", errorType: "rate_limited", retryAfter: 1 },
          { "retry-after": state.retryAfter },
          ids,
        );
        return;
      case "400":
        send(400, { success: false, message: "Batch is malformed", errorType: "validation_error" }, {}, ids);
        return;
      case "404":
        send(404, { success: false, message: "Not found", errorType: "not_found" }, {}, ids);
        return;
      case "408":
        send(408, { success: false, message: "Request timed out", errorType: "timeout" }, {}, ids);
        return;
      case "html":
        // A web page answering 200 (a proxy, a wrong URL) is not the ingest endpoint storing anything.
        requests.push({ at: Date.now(), status: 200, ids });
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<!doctype html><title>Turnout</title>");
        return;
      case "slow":
        // Stored, but the reply comes too late: the client retries and the id must not be stored twice.
        requests.push({ at: Date.now(), status: 200, ids });
        store(items);
        await new Promise((resolve) => setTimeout(resolve, state.slowMs));
        if (!res.destroyed) {
          acceptedIds.push(...ids);
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ success: true, data: ids.map((id) => ({ id })) }));
        }
        return;
      default:
        if (items.some(state.failIf)) {
          send(
            500,
            { success: false, message: "Something went wrong.", errorType: "internal_error" },
            {},
            ids,
          );
          return;
        }
        if (items.some(state.rejectIf)) {
          send(
            400,
            { success: false, message: "A message is malformed", errorType: "validation_error" },
            {},
            ids,
          );
          return;
        }
        {
          const refused = items.flatMap((item, index) => {
            const reason = state.refuseIf(item);
            return reason === null ? [] : [{ index, id: item.id, reason }];
          });
          const kept = items.filter((_, index) => !refused.some((r) => r.index === index));
          store(kept);
          acceptedIds.push(...kept.map((m) => m.id));
          send(200, { success: true, data: kept.map((m) => ({ id: m.id })), refused }, {}, ids);
        }
    }
  }

  async function listen(): Promise<void> {
    const s = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  }

  async function down(): Promise<void> {
    const s = server;
    server = undefined;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  await listen();

  return {
    heartbeats,
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    get mode() {
      return state.mode;
    },
    set mode(m: StandInMode) {
      state.mode = m;
    },
    get retryAfter() {
      return state.retryAfter;
    },
    set retryAfter(v: string) {
      state.retryAfter = v;
    },
    get slowMs() {
      return state.slowMs;
    },
    set slowMs(v: number) {
      state.slowMs = v;
    },
    get rejectIf() {
      return state.rejectIf;
    },
    get failIf() {
      return state.failIf;
    },
    set failIf(fn: (item: IngestItem) => boolean) {
      state.failIf = fn;
    },
    set rejectIf(fn: (item: IngestItem) => boolean) {
      state.rejectIf = fn;
    },
    get refuseIf() {
      return state.refuseIf;
    },
    set refuseIf(fn: (item: IngestItem) => string | null) {
      state.refuseIf = fn;
    },
    requests,
    storedIds,
    stored,
    acceptedIds,
    async waitForStored(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (stored.size < count) {
        if (Date.now() > deadline) throw new Error(`only ${stored.size} of ${count} messages stored`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    down,
    up: () => (server ? Promise.resolve() : listen()),
    close: down,
  };
}
