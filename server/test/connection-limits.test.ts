import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "./build-app.js";

/**
 * What a slow or odd client meets on the real HTTP server (not inject): headers and request time-outs,
 * and the security headers on the live channel's own responses, which Fastify's hooks never see.
 */

let app: TestApp;
let port: number;

beforeAll(async () => {
  app = await buildTestApp({ HEADERS_TIMEOUT_MS: "300", REQUEST_TIMEOUT_MS: "1000" });
  await app.listen({ host: "127.0.0.1", port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.cleanup());

/** Writes `data` on a raw connection and resolves with what came back and how long until it closed. */
function rawExchange(data: string): Promise<{ reply: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, "127.0.0.1", () => socket.write(data));
    let reply = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      reply += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ reply, closedAfterMs: Date.now() - started }));
    setTimeout(() => socket.destroy(new Error("still open after 10 s")), 10_000).unref();
  });
}

describe("slow clients", () => {
  it("answers 408 and closes a connection whose headers stop half-way", async () => {
    const { reply, closedAfterMs } = await rawExchange("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(250);
  });

  it("answers 408 and closes a connection whose body stops short of its length", async () => {
    const { reply, closedAfterMs } = await rawExchange(
      "POST /api/auth/request-otp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
  });

  it("serves a request that arrives in time as usual", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(res.status).toBe(200);
  });
});

describe("the live channel's responses", () => {
  const expectSecurityHeaders = (res: Response) => {
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(res.headers.get("cache-control")).toBe("no-store");
  };

  it("carry the security headers on a handshake", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/socket.io/?EIO=4&transport=polling`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^0\{"sid"/);
    expectSecurityHeaders(res);
  });

  it("carry them on engine.io's own error answers too", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/socket.io/?EIO=4&transport=polling&sid=nope`);
    expect(res.status).toBe(400);
    expectSecurityHeaders(res);
  });
});
