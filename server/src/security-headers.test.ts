import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testConfig } from "../test/build-app.js";
import { createUser, signIn } from "../test/factories.js";

const SPLASH_STYLE = ".splash{display:flex}";
const INLINE_SCRIPT = "window.booted=1";
const hashOf = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** A built web app with one inline style and one inline script, as Vite could emit them. */
function writeWebDist(): string {
  const dir = testConfig().dataDir;
  mkdirSync(path.join(dir, "assets"), { recursive: true });
  writeFileSync(
    path.join(dir, "index.html"),
    `<!doctype html><title>Turnout</title><style>${SPLASH_STYLE}</style>` +
      `<script type="module" crossorigin src="/assets/index-abc.js"></script>` +
      `<script>${INLINE_SCRIPT}</script><div id=root></div>`,
  );
  writeFileSync(path.join(dir, "assets", "index-abc.js"), "console.log('hi')");
  return dir;
}

/** The Content-Security-Policy header as directive name -> its sources. */
function directives(header: unknown): Record<string, string[]> {
  expect(typeof header).toBe("string");
  return Object.fromEntries(
    (header as string).split(";").map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

describe("security headers over plain http", () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await buildTestApp({ WEB_DIST_DIR: writeWebDist() });
    token = await signIn(app, (await createUser(app)).phone);
  });
  afterAll(() => app.cleanup());

  it("serves the app page under a policy without eval, inline script or framing", async () => {
    const res = await app.inject({ method: "GET", url: "/" });
    expect(res.statusCode).toBe(200);
    const csp = directives(res.headers["content-security-policy"]);
    expect(csp["default-src"]).toEqual(["'self'"]);
    expect(csp["script-src"]).toEqual(["'self'", hashOf(INLINE_SCRIPT)]);
    expect(csp["script-src-attr"]).toEqual(["'none'"]);
    expect(csp["style-src"]).toEqual(["'self'", hashOf(""), hashOf(SPLASH_STYLE)]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    // Images from this origin, object URLs the page itself made (a logo previewed before upload), and
    // the map's tiles from the configured tile host only (issue 34; OpenStreetMap's by default).
    expect(csp["img-src"]).toEqual(["'self'", "blob:", "https://tile.openstreetmap.org"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'self'"]);
    expect(csp["form-action"]).toEqual(["'self'"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp).not.toHaveProperty("upgrade-insecure-requests");
    expect(res.headers["content-security-policy"]).not.toMatch(/unsafe-(eval|inline)/);
    expect(res.headers).toMatchObject({
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
      "cross-origin-resource-policy": "same-origin",
      "cache-control": "no-cache",
    });
    expect(res.headers).not.toHaveProperty("strict-transport-security");
  });

  it("keeps the year-long cache of hashed assets", async () => {
    const res = await app.inject({ method: "GET", url: "/assets/index-abc.js" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("answers a signed-in API request with no-store", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/auth/profile",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("answers unauthenticated API requests with no-store too, sign-in answers carrying a token included", async () => {
    const agencies = await app.inject({ method: "GET", url: "/api/auth/agencies" });
    expect(agencies.statusCode).toBe(200);
    expect(agencies.headers["cache-control"]).toBe("no-store");
    const refused = await app.inject({ method: "GET", url: "/api/auth/profile" });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers["cache-control"]).toBe("no-store");
    const health = await app.inject({ method: "GET", url: "/api/health?full=1" });
    expect(health.headers["cache-control"]).toBe("no-store");
  });

  it("serves an uploaded logo with its long cache, and an SVG with its own stricter policy", async () => {
    const logoDir = path.join(app.config.dataDir, "uploads", "agency-logos");
    writeFileSync(path.join(logoDir, "1-0123456789abcdef.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(path.join(logoDir, "1-fedcba9876543210.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');

    const png = await app.inject({ method: "GET", url: "/api/uploads/agency-logos/1-0123456789abcdef.png" });
    expect(png.statusCode).toBe(200);
    expect(png.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(png.headers).toMatchObject({ "x-content-type-options": "nosniff", "x-frame-options": "DENY" });

    const svg = await app.inject({ method: "GET", url: "/api/uploads/agency-logos/1-fedcba9876543210.svg" });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(svg.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});

describe("security headers when PUBLIC_URL is https", () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await buildTestApp({ WEB_DIST_DIR: writeWebDist(), PUBLIC_URL: "https://turnout.example.org" });
  });
  afterAll(() => app.cleanup());

  it("asks browsers to keep to https for a year and to upgrade any plain-http request", async () => {
    for (const url of ["/", "/api/health"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
      expect(directives(res.headers["content-security-policy"])).toHaveProperty("upgrade-insecure-requests");
    }
  });
});
