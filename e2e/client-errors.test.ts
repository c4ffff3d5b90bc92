import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiJson, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const ADMIN_PHONE = "+61400000977";

type LogEntry = { level: string; category: string; message: string; details: Record<string, unknown> | null };

describe.skipIf(!chromiumPath)("an error in someone's app, in Chromium", () => {
  let server: RunningServer;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer({ ADMIN_PHONES: ADMIN_PHONE });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("reaches the admin's system log and System Monitor, masked, from the page's own code", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/login?from=sms`);
    await page.getByRole("button", { name: "Send Code" }).waitFor();
    // An error nothing catches, thrown by the page's own code (a timer's), as a bug would be.
    await page.evaluate(`setTimeout(() => { throw new RangeError("bad date for +61412345678"); })`);
    const { token } = await signInByApi(server, ADMIN_PHONE);
    let entry: LogEntry | undefined;
    for (let i = 0; i < 50 && !entry; i++) {
      const logs = await apiJson<{ data: LogEntry[] }>(server, "GET", "/admin/system/logs?level=error", {
        token,
      });
      entry = logs.data.find((l) => l.category === "web");
      if (!entry) await new Promise((r) => setTimeout(r, 200));
    }
    expect(entry?.message).toMatch(/^App error \(error\) on \/login: RangeError: bad date for \+614•+678$/);
    expect(entry?.message).not.toContain("412345678");
    expect(entry?.details).toMatchObject({
      kind: "error",
      path: "/login",
      release: expect.stringMatching(/^[\w-]+\.js$/),
    });
    const dashboard = await apiJson<{ data: { health: { warnings: string[] } } }>(
      server,
      "GET",
      "/admin/system/dashboard",
      { token },
    );
    expect(dashboard.data.health.warnings).toContain(
      "1 error in people's apps in the last hour (system log, category web)",
    );
  });
});
