import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";

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
});
