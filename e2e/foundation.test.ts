import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserSession, openBrowser, takeCspViolations } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

describe.skipIf(!chromiumPath)("the app shell in Chromium", () => {
  let server: RunningServer;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer();
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows 'Loading Turnout' while the app starts, then the login screen", async () => {
    const { page } = browser;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route("**/assets/*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${server.url}/`, { waitUntil: "commit" });
    await page.getByRole("status").filter({ hasText: "Loading Turnout" }).waitFor({ timeout: 10_000 });
    release();
    await page.getByRole("button", { name: "Send Code" }).waitFor({ timeout: 15_000 });
    expect(await page.getByLabel("Phone number").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Create New Account" }).isVisible()).toBe(true);
    expect(await page.title()).toBe("Turnout");
  });

  it("shows the login screen at /login and rewrites /j/{id} to /?job={id}", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/login`);
    await page.getByRole("button", { name: "Send Code" }).waitFor();
    await page.goto(`${server.url}/j/4711`);
    await page.getByRole("button", { name: "Send Code" }).waitFor();
    expect(new URL(page.url()).search).toBe("?job=4711");
  });

  it("runs the keyboard debug page: typing, counting, a fake submit, the log and back to login", async () => {
    const { page, errors } = browser;
    await page.goto(`${server.url}/?debug=keyboard`);
    await page.getByRole("heading", { name: "Keyboard Debug" }).waitFor();
    const input = page.getByRole("textbox", { name: "Test input", exact: true });

    await input.fill("hello");
    expect(await input.inputValue()).toBe("hello");
    const log = page.getByRole("log");
    expect(await log.textContent()).toContain("focus:");

    await page.getByRole("button", { name: "Count Click" }).click();
    await page.getByRole("button", { name: "Count Click" }).click();
    expect(await page.getByText("Clicks: 2").isVisible()).toBe(true);

    await page.getByRole("textbox", { name: "Form field", exact: true }).fill("abc");
    await page.getByRole("textbox", { name: "Form field", exact: true }).press("Enter");
    expect(await log.textContent()).toContain('fake submit prevented (value: "abc")');
    expect(new URL(page.url()).search).toBe("?debug=keyboard");

    await page.setViewportSize({ width: 900, height: 700 });
    await page
      .getByText(/resize: 900x700/)
      .first()
      .waitFor();

    await page.getByRole("button", { name: "Clear Log" }).click();
    expect(await log.textContent()).toContain("No events yet");

    await page.getByRole("button", { name: "Back to Login" }).click();
    await page.getByRole("button", { name: "Send Code" }).waitFor();
    expect(errors).toEqual([]);
  });

  it("serves the production build: React's production bundle among the scripts of the first download", async () => {
    // A NODE_ENV inherited by the build (Vitest sets "test") once bundled React's development build.
    const html = await (await fetch(`${server.url}/`)).text();
    const scripts = [
      ...html.matchAll(/<(?:script type="module"[^>]*src|link rel="modulepreload"[^>]*href)="([^"]+)"/g),
    ].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(1);
    const code = (
      await Promise.all(scripts.map(async (s) => (await fetch(`${server.url}${s}`)).text()))
    ).join("\n");
    // Production React throws coded errors ("Minified React error #…"); the development build never does.
    expect(code).toContain("Minified React error");
  });

  it("sends the page with a Content-Security-Policy that refuses an injected inline script", async () => {
    const { page } = browser;
    const response = await page.goto(`${server.url}/login`);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/(^|;) ?script-src 'self';/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("unsafe-eval");
    await page.getByRole("button", { name: "Send Code" }).waitFor();

    // What an HTML injection would amount to: markup with an inline script, added to the live page.
    await page.evaluate(`(() => {
      const script = document.createElement("script");
      script.textContent = "window.injectedRan = true";
      document.body.append(script);
    })()`);
    const seen: string[] = [];
    await expect
      .poll(() => {
        seen.push(...takeCspViolations());
        return seen.join("\n");
      })
      .toMatch(/^script-src-elem refused inline at /m);
    expect(await page.evaluate("window.injectedRan")).toBeUndefined();
  });

  it("answers the health check", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
  });
});
