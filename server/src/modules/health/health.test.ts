import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../../test/build-app.js";

describe("GET /api/health", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp();
  });
  afterAll(() => app.cleanup());

  it("answers 200 with status ok while the database answers", async () => {
    const res = await app.inject({ method: "GET", url: "/api/health" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: "ok",
      database: "up",
      cache: process.env.REDIS_URL ? "up" : "not_configured",
      environment: "production",
    });
  });

  it("names the development environment, for the web app's banner", async () => {
    const dev = await buildTestApp({ APP_ENV: "development" });
    try {
      expect((await dev.inject({ method: "GET", url: "/api/health" })).json().environment).toBe(
        "development",
      );
    } finally {
      await dev.cleanup();
    }
  });

  it("says the instance is ready, with an id of this process, and 503 once it is shutting down", async () => {
    const res = await app.inject({ method: "GET", url: "/api/ready" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ready", instance: app.lifecycle.instanceId });
    expect(app.lifecycle.instanceId).toMatch(/^[0-9a-f]{16}$/);

    const other = await buildTestApp();
    try {
      expect((await other.inject({ method: "GET", url: "/api/ready" })).json().instance).not.toBe(
        app.lifecycle.instanceId,
      );
      const url = `${await listenLocally(other)}/api/ready`;
      // A request in flight when the shutdown begins keeps its connection, and is answered 503 closing.
      const agent = new http.Agent({ keepAlive: true });
      const get = () =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          http
            .get(url, { agent }, (res) => {
              let body = "";
              res.on("data", (d) => (body += d));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
            })
            .on("error", reject);
        });
      expect((await get()).status).toBe(200);
      other.lifecycle.closing = true; // what preClose sets first when a shutdown begins
      const closing = await get();
      expect(closing.status).toBe(503);
      expect(JSON.parse(closing.body)).toMatchObject({ status: "closing" });
      agent.destroy();
    } finally {
      await other.cleanup();
    }
  });
});
