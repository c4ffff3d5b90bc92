import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testConfig } from "../test/build-app.js";
import { createUser, signIn } from "../test/factories.js";

const BIG_SCRIPT = `console.log(${JSON.stringify("x".repeat(4000))});`;

/** A built web app whose script has a precompressed copy, as the web build writes them. */
function writeWebDist(): string {
  const dir = testConfig().dataDir;
  mkdirSync(path.join(dir, "assets"), { recursive: true });
  writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Turnout</title><div id=root></div>");
  writeFileSync(path.join(dir, "assets", "index-abc.js"), BIG_SCRIPT);
  writeFileSync(path.join(dir, "assets", "index-abc.js.br"), brotliCompressSync(BIG_SCRIPT));
  return dir;
}

describe("response compression", () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await buildTestApp({ WEB_DIST_DIR: writeWebDist() });
    token = await signIn(app, (await createUser(app, { isAdmin: true })).phone);
    for (let i = 0; i < 12; i++) {
      const res = await app.inject({
        method: "POST",
        url: "/api/admin/agencies",
        headers: { authorization: `Bearer ${token}` },
        payload: { name: `Compression Test Brigade ${i}`, code: `CTB${i}` },
      });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(() => app.cleanup());

  /** An answer over 1 KB: the admin's list of agencies. */
  const bigAnswer = (encoding?: string) =>
    app.inject({
      method: "GET",
      url: "/api/admin/agencies",
      headers: { authorization: `Bearer ${token}`, ...(encoding ? { "accept-encoding": encoding } : {}) },
    });

  it("compresses an API answer of 1 KB and more for a client that asks: brotli first, else gzip", async () => {
    const plain = await bigAnswer();
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(1024);

    const br = await bigAnswer("gzip, deflate, br, zstd");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
    expect(br.headers["cache-control"]).toBe(plain.headers["cache-control"]);

    const gzip = await bigAnswer("gzip");
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json());
  });

  it("leaves small answers as they are", async () => {
    const res = await app.inject({ method: "GET", url: "/api/health", headers: { "accept-encoding": "br" } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers["content-encoding"]).toBeUndefined();
  });

  it("serves a static file's precompressed copy once, not compressed again", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/assets/index-abc.js",
      headers: { "accept-encoding": "br" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(BIG_SCRIPT);
  });

  it("does not inflate a compressed request body: its size limit counts the bytes received", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/admin/agencies",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "content-encoding": "gzip",
      },
      payload: brotliCompressSync(JSON.stringify({ name: "Gzipped", code: "GZIP" })),
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});
