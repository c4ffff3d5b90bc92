import { vi } from "vitest";

/** One request as the fake server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path under /api, without the query string, e.g. "/auth/request-otp". */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | undefined;
}

export interface MockReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A canned reply, or a function of the request; throw from it to simulate a network failure. */
export type MockRoute = MockReply | ((request: RecordedRequest) => MockReply | Promise<MockReply>);

export interface MockApi {
  requests: RecordedRequest[];
  /** Requests to "METHOD /path". */
  callsTo: (key: string) => RecordedRequest[];
  /** Add or replace a route. */
  on: (key: string, route: MockRoute) => void;
}

/**
 * Replace fetch with a fake /api keyed by "METHOD /path" (path prefix match with `*` at the end).
 * Unknown routes answer 404 so a missing mock shows up as a visible error, not a hang.
 */
export function mockApi(routes: Record<string, MockRoute> = {}): MockApi {
  const table = new Map<string, MockRoute>(Object.entries(routes));
  const requests: RecordedRequest[] = [];

  const find = (method: string, path: string): MockRoute | undefined => {
    const exact = table.get(`${method} ${path}`);
    if (exact) return exact;
    for (const [key, route] of table) {
      const [keyMethod, keyPath = ""] = key.split(" ");
      if (keyMethod === method && keyPath.endsWith("*") && path.startsWith(keyPath.slice(0, -1)))
        return route;
    }
    return undefined;
  };

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    // Like the real fetch, a signal aborted before the call rejects at once and nothing is sent: a query
    // the last test cancelled as it unmounted must not reach this test's server (its calls and timings).
    if (init.signal?.aborted) throw new DOMException("Aborted", "AbortError");
    const url = new URL(String(input), "http://localhost");
    const method = (init.method ?? "GET").toUpperCase();
    const path = url.pathname.replace(/^\/api/, "");
    const rawBody = init.body;
    const request: RecordedRequest = {
      method,
      path,
      query: url.searchParams,
      headers: new Headers(init.headers),
      body: typeof rawBody === "string" ? JSON.parse(rawBody) : rawBody,
      signal: init.signal ?? undefined,
    };
    requests.push(request);
    const route = find(method, path);
    const reply: MockReply = route
      ? typeof route === "function"
        ? await route(request)
        : route
      : { status: 404, body: { success: false, message: `No mock for ${method} ${path}` } };
    const status = reply.status ?? 200;
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status,
      headers: { "Content-Type": "application/json", ...reply.headers },
    });
  });
  vi.stubGlobal("fetch", fetchMock);

  return {
    requests,
    callsTo: (key) => {
      const [method, path] = key.split(" ");
      return requests.filter((request) => request.method === method && request.path === path);
    },
    on: (key, route) => {
      table.set(key, route);
    },
  };
}

/** A fetch that never answers until its signal aborts (for timeout tests). */
export function hangingFetch(): void {
  vi.stubGlobal(
    "fetch",
    vi.fn(
      (_input: RequestInfo | URL, init: RequestInit = {}) =>
        new Promise<Response>((_resolve, reject) => {
          // Like the real fetch, a signal aborted before the call rejects at once: under load the
          // client's time-out can fire while it still derives the device id, before fetch is called.
          const abort = () => reject(new DOMException("Aborted", "AbortError"));
          if (init.signal?.aborted) abort();
          else init.signal?.addEventListener("abort", abort);
        }),
    ),
  );
}
