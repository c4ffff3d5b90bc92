import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { pngSize } from "./support/png.js";
import { type RunningServer, startServer } from "./support/server.js";

type ManifestIcon = { src: string; sizes: string; type: string; purpose?: string };

describe("the installable app", () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("links a manifest from the page, with the name, start, display and colours", async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest">');
    expect(html).toContain('<link rel="apple-touch-icon" href="/apple-touch-icon.png"');

    const res = await fetch(`${server.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    const manifest = await res.json();
    expect(manifest).toMatchObject({
      id: "/",
      name: "Turnout",
      short_name: "Turnout",
      start_url: "/",
      scope: "/",
      display: "standalone",
      theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      background_color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
    });
    expect(manifest.description).toBeTruthy();
  });

  it("serves every manifest icon at the size it claims, maskable ones included", async () => {
    const manifest = await (await fetch(`${server.url}/manifest.webmanifest`)).json();
    const icons = manifest.icons as ManifestIcon[];
    const pngSizes = icons.filter((i) => i.type === "image/png" && i.purpose === "any").map((i) => i.sizes);
    for (const size of [48, 72, 96, 128, 144, 152, 192, 256, 384, 512]) {
      expect(pngSizes).toContain(`${size}x${size}`);
    }
    const maskable = icons.filter((i) => i.purpose === "maskable").map((i) => i.sizes);
    expect(maskable).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    expect(icons.some((i) => i.type === "image/svg+xml")).toBe(true);

    for (const icon of icons) {
      const res = await fetch(new URL(icon.src, server.url));
      expect(res.status, icon.src).toBe(200);
      expect(res.headers.get("content-type"), icon.src).toContain(icon.type);
      const body = Buffer.from(await res.arrayBuffer());
      if (icon.type === "image/png") {
        const { width, height } = pngSize(body);
        expect(`${width}x${height}`, icon.src).toBe(icon.sizes);
      } else {
        expect(body.toString("utf8"), icon.src).toContain("<svg");
      }
    }
  });

  it("serves the apple-touch icon (180 px) and the favicon", async () => {
    const apple = await fetch(`${server.url}/apple-touch-icon.png`);
    expect(apple.status).toBe(200);
    expect(apple.headers.get("content-type")).toContain("image/png");
    expect(pngSize(Buffer.from(await apple.arrayBuffer()))).toEqual({ width: 180, height: 180 });
    const favicon = await fetch(`${server.url}/favicon.ico`);
    expect(favicon.status).toBe(200);
  });

  it("serves /sw.js, always revalidated, with no runtime caching of the API", async () => {
    const res = await fetch(`${server.url}/sw.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const sw = await res.text();
    expect(sw).toContain("precacheAndRoute");
    expect(sw).toContain("index.html");
    expect(sw).not.toContain("registerRoute(/\\/api");
    expect(sw).not.toMatch(/NetworkFirst|StaleWhileRevalidate|CacheFirst/);
  });

  describe.skipIf(!chromiumPath)("in Chromium", () => {
    let browser: BrowserSession;

    beforeAll(async () => {
      browser = await openBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("registers /sw.js, which then controls the page", async () => {
      const { page } = browser;
      await page.goto(`${server.url}/`);
      await page.getByRole("button", { name: "Send Code" }).waitFor();
      const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
      expect(scope).toBe(`${server.url}/`);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
        timeout: 15_000,
      });
      const script = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
      expect(script).toBe(`${server.url}/sw.js`);
    });

    it("does not answer API paths with the app shell", async () => {
      const { page } = browser;
      const answer = await page.evaluate(async () => {
        const res = await fetch("/api/no-such-endpoint");
        return { status: res.status, type: res.headers.get("content-type") };
      });
      expect(answer.status).toBe(404);
      expect(answer.type).toContain("application/json");
      const navigation = await page.goto(`${server.url}/api/health`);
      expect(navigation?.headers()["content-type"]).toContain("application/json");
      await page.goBack();
    });

    it("opens the app shell from the service worker with the network down", async () => {
      const { page, context, errors } = browser;
      await page.goto(`${server.url}/`);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await context.setOffline(true);
      try {
        await page.reload();
        await page.getByRole("button", { name: "Send Code" }).waitFor({ timeout: 15_000 });
        expect(await page.title()).toBe("Turnout");
        // Client routes fall back to the cached shell too.
        await page.goto(`${server.url}/login`);
        await page.getByRole("button", { name: "Send Code" }).waitFor({ timeout: 15_000 });
        // The API is not served from a cache: offline it fails.
        const apiOffline = await page.evaluate(async () => {
          try {
            await fetch("/api/health");
            return "answered";
          } catch {
            return "failed";
          }
        });
        expect(apiOffline).toBe("failed");
      } finally {
        await context.setOffline(false);
      }
      expect(errors).toEqual([]);
    });

    it("shows the worker state, the manifest and the caches at /?debug=pwa", async () => {
      const { page } = browser;
      await page.goto(`${server.url}/?debug=pwa`);
      await page.getByRole("heading", { name: "Installable App Debug" }).waitFor();
      const row = (table: string, name: string) =>
        page
          .getByRole("table", { name: table })
          .getByRole("row", { name: new RegExp(`^${name}`) })
          .getByRole("cell");
      await row("Service Worker", "Registered").waitFor();
      expect(await row("Service Worker", "Registered").textContent()).toBe("Yes");
      expect(await row("Service Worker", "Active worker").textContent()).toBe(
        `activated (${server.url}/sw.js)`,
      );
      expect(await row("Service Worker", "Controller").textContent()).toContain("activated");
      expect(await row("Manifest", "Name").textContent()).toBe("Turnout");
      expect(await row("Manifest", "Display").textContent()).toBe("standalone");
      expect(await row("Manifest", "Icons").textContent()).toMatch(/^1[0-9] \(2 maskable\)$/);
      const precache = page
        .getByRole("table", { name: "Caches" })
        .getByRole("row", { name: /workbox-precache/ });
      expect(await precache.getByRole("cell").textContent()).toMatch(/^\d+ entries$/);

      await page.getByRole("button", { name: "Check for Updates" }).click();
      await page.getByText(/no update found/).waitFor();

      await page.getByRole("button", { name: "Back to Login" }).click();
      await page.getByRole("button", { name: "Send Code" }).waitFor();
    });
  });
});
