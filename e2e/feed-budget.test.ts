import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SignedInSession } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { FEED_ADMIN_PHONE, FEED_INGEST_KEY, recordScripts, seedMemberFeed } from "./support/feed-fixture.js";
import { type RunningServer, startServer } from "./support/server.js";

/**
 * Issue 31 asks for at most 200 KB (gzip, 1 KB = 1000 bytes) of JavaScript for the signed-in feed. It
 * loads ~162 KB since the feed and its shell are plain elements (web/src/ui/kit) and MUI loads only
 * with what the member opens (see bench/results/web-performance.md); this budget is that plus a little
 * headroom, so the feed cannot grow unnoticed. Lower it as the feed gets smaller.
 */
const FEED_SCRIPT_BUDGET = 166_000;
const ISSUE_TARGET = 200_000;

/** Chunks of screens the feed does not show on first paint: none of them may load with it. */
const NOT_ON_FIRST_PAINT = [
  // MUI's styling engine and theme (and the theme's module, mui-theme): the feed is plain elements.
  "mui",
  "admin-console",
  "user-menu-list",
  // zod's English messages, for the forms' errors (web/src/app/zod-messages.ts).
  "zod-messages",
  "job-responses",
  "my-alerts-dialog",
  "my-feedback-dialog",
  "push-dialog",
  "my-devices-dialog",
  "my-units-dialog",
  "alarm-settings-dialog",
  "search-dialog",
  "filter-settings-dialog",
  "job-detail-dialog",
  "grouped-alert-dialog",
  "keyboard-debug-page",
  "pwa-debug-page",
  "register-screen",
  "activation-screen",
  "session-ended-dialog",
  "not-authorized-dialog",
];

describe.skipIf(!chromiumPath)("the signed-in feed's JavaScript, in Chromium", () => {
  let server: RunningServer;
  let session: SignedInSession;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer({ INGEST_API_KEY: FEED_INGEST_KEY, ADMIN_PHONES: FEED_ADMIN_PHONE });
    session = await seedMemberFeed(server, 50);
    browser = await openBrowser({ viewport: { width: 412, height: 823 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The session as the login screen leaves it, stored without loading the app first. */
  async function storeSession(page: BrowserSession["page"]) {
    await page.goto(`${server.url}/api/health`);
    await page.evaluate(
      `localStorage.setItem("turnout_token", ${JSON.stringify(session.token)});
       localStorage.setItem("turnout_user", ${JSON.stringify(JSON.stringify(session.user))});
       localStorage.setItem("turnout_agency", ${JSON.stringify(JSON.stringify(session.agency))});`,
    );
  }

  it("loads the feed of 50 alerts within its script budget, with no dialog, console or debug page", async () => {
    const { page } = browser;
    await storeSession(page);
    const recorder = recordScripts(page);
    await page.goto(`${server.url}/`);
    await page.getByRole("article").first().waitFor({ timeout: 30_000 });
    await page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
    expect(await page.getByRole("article").count()).toBeGreaterThan(3);
    // Whatever the page fetches once the feed is up (the live channel, lazy parts) counts too.
    await page.waitForTimeout(2_000);

    const scripts = await recorder.scripts();
    const total = scripts.reduce((sum, script) => sum + script.gzip, 0);
    const list = scripts
      .sort((a, b) => b.gzip - a.gzip)
      .map((s) => `${new URL(s.url).pathname} ${(s.gzip / 1000).toFixed(1)} KB`)
      .join("\n");
    console.info(
      `signed-in feed: ${(total / 1000).toFixed(1)} KB gzip (budget ${FEED_SCRIPT_BUDGET / 1000} KB, issue 31's target ${ISSUE_TARGET / 1000} KB)\n${list}`,
    );
    expect(scripts.length).toBeGreaterThan(3);
    expect(total, list).toBeLessThanOrEqual(FEED_SCRIPT_BUDGET);
    const lazyLoaded = scripts
      .map((s) => new URL(s.url).pathname)
      .filter((file) => NOT_ON_FIRST_PAINT.some((name) => file.includes(`/${name}-`)));
    expect(lazyLoaded).toEqual([]);
    expect(browser.errors).toEqual([]);

    // Opening a dialog fetches its chunk then (and the dialog works).
    await page.getByRole("button", { name: "Search messages" }).click();
    await page.getByRole("dialog", { name: /search/i }).waitFor();
    const after = (await recorder.scripts()).map((s) => new URL(s.url).pathname);
    expect(after.some((file) => file.includes("/search-dialog-"))).toBe(true);
  });

  it("has the page ask for React and the app beside its entry, which holds no React (one tier less)", async () => {
    // web/vite.config.ts `preloadStart`: the entry (src/main.tsx) asks for the first screen's code and
    // data at once; React and the app (src/app/start.tsx) must not wait for it to have run.
    const html = await (await fetch(`${server.url}/`)).text();
    const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    const preloaded = [...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(entry).toMatch(/^\/assets\/index-/);
    expect(preloaded.some((href) => /\/assets\/react-/.test(href ?? ""))).toBe(true);
    expect(preloaded.some((href) => /\/assets\/start-/.test(href ?? ""))).toBe(true);
    expect(html).toMatch(/<link rel="stylesheet"[^>]*href="\/assets\/start-[^"]+\.css"/);
    const entryScript = await (await fetch(`${server.url}${entry}`)).text();
    expect(entryScript).not.toContain("react-dom");
    expect(entryScript).not.toMatch(/from\s*"\.\/react-/);
  });

  it("paints the sign-in screen without MUI, which comes with the screen or dialog that needs it", async () => {
    // The login page is what every new member sees first (issue 31: Lighthouse mobile 95+): plain
    // elements like the feed, its other screens and dialogs built with MUI load when opened.
    const tab = await openBrowser({ viewport: { width: 412, height: 823 } });
    try {
      const { page } = tab;
      const recorder = recordScripts(page);
      await page.goto(`${server.url}/login`);
      await page.getByLabel("Phone number").waitFor({ timeout: 30_000 });
      await page.waitForTimeout(2_000);
      const onFirstPaint = (await recorder.scripts()).map((s) => new URL(s.url).pathname);
      const total = (await recorder.scripts()).reduce((sum, script) => sum + script.gzip, 0);
      console.info(`sign-in screen: ${(total / 1000).toFixed(1)} KB gzip\n${onFirstPaint.join("\n")}`);
      expect(onFirstPaint.some((file) => file.includes("/auth-screens-"))).toBe(true);
      expect(
        onFirstPaint.filter((file) => NOT_ON_FIRST_PAINT.some((name) => file.includes(`/${name}-`))),
      ).toEqual([]);

      // Pointing at Create New Account starts its screen's download, and MUI's, before the tap.
      const createAccount = page.getByRole("button", { name: "Create New Account" });
      await createAccount.hover();
      const loaded = async () => (await recorder.scripts()).map((s) => new URL(s.url).pathname);
      await expect
        .poll(async () => (await loaded()).some((file) => file.includes("/register-screen-")), {
          timeout: 10_000,
        })
        .toBe(true);
      await createAccount.click();
      await page.getByRole("heading", { name: "Create Account" }).waitFor({ timeout: 30_000 });
      expect((await loaded()).some((file) => file.includes("/mui-"))).toBe(true);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("puts the first cards on screen before it opens the live channel or asks for what they do not need", async () => {
    const tab = await openBrowser({ viewport: { width: 412, height: 823 } });
    try {
      const { page } = tab;
      // When the first card entered the page, on the page's own clock.
      await tab.context.addInitScript({
        content: `window.__firstCardAt = null;
          new MutationObserver(() => {
            if (window.__firstCardAt === null && document.querySelector("article"))
              window.__firstCardAt = performance.now();
          }).observe(document, { subtree: true, childList: true });`,
      });
      await storeSession(page);
      await page.goto(`${server.url}/`);
      await page.locator('[data-connection="connected"]').waitFor({ timeout: 30_000 });
      await page.waitForTimeout(1_000);
      const timings = await page.evaluate<{ firstCardAt: number | null; requests: [string, number][] }>(
        `({
          firstCardAt: window.__firstCardAt,
          requests: performance.getEntriesByType("resource").map((entry) => [new URL(entry.name).pathname, entry.startTime]),
        })`,
      );
      const firstCardAt = timings.firstCardAt ?? Number.POSITIVE_INFINITY;
      const startOf = (path: string) => timings.requests.find(([name]) => name === path)?.[1];
      // The first page came before its cards, of course; the rest waits for them (web/src/ui/first-content.ts).
      expect(startOf("/api/alerts/search")).toBeLessThan(firstCardAt);
      for (const path of [
        "/socket.io/",
        "/api/alerts/responses",
        "/api/health",
        "/api/feedback/unread-count",
      ]) {
        expect(startOf(path), `${path} (${JSON.stringify(timings)})`).toBeGreaterThan(firstCardAt);
      }
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("recovers when a part is missing, as after a release: one reload, then a notice over a working feed", async () => {
    // No service worker: it would answer from its cache, out of the test's reach.
    const tab = await openBrowser({ viewport: { width: 412, height: 823 }, serviceWorkers: "block" });
    try {
      const { page } = tab;
      await storeSession(page);
      await page.goto(`${server.url}/`);
      await page.getByRole("article").first().waitFor({ timeout: 30_000 });
      // The open tab's release is gone from the server: its My Alerts dialog answers 404 from now on.
      await page.route(/\/assets\/my-alerts-dialog-[^/]*\.js$/, (route) => route.fulfill({ status: 404 }));
      const openMyAlerts = async () => {
        await page.getByRole("button", { name: /^User menu/ }).click();
        await page.getByRole("menuitem", { name: "My Alerts" }).click();
      };

      // The first failure reloads the page (which would fetch the new release's files).
      const reloaded = page.waitForEvent("load", { timeout: 30_000 });
      await openMyAlerts();
      await reloaded;
      await page.getByRole("article").first().waitFor({ timeout: 30_000 });

      // Failing again within the minute: no reload loop, a notice, and the feed still there.
      await openMyAlerts();
      const notice = page.getByRole("alert").filter({ hasText: "could not load this part of the app" });
      await notice.waitFor({ timeout: 30_000 });
      expect(await notice.getByRole("button", { name: "Reload" }).isVisible()).toBe(true);
      expect(await page.getByRole("article").count()).toBeGreaterThan(3);
    } finally {
      await tab.close();
    }
  });
});
