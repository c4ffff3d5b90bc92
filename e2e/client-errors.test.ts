import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiJson, openSignedIn, signInByApi } from "./support/alerts.js";
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

  it("reaches the admin's system log, masked, from the page's own code; a signed-in person's also the health card", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/login?from=sms`);
    await page.getByRole("button", { name: "Send Code" }).waitFor();
    // An error nothing catches, thrown by the page's own code (a timer's), as a bug would be.
    await page.evaluate(`setTimeout(() => { throw new RangeError("bad date for +61412345678"); })`);
    const session = await signInByApi(server, ADMIN_PHONE);
    const { token } = session;
    const webEntry = async (pattern: RegExp): Promise<LogEntry | undefined> => {
      for (let i = 0; i < 50; i++) {
        const logs = await apiJson<{ data: LogEntry[] }>(server, "GET", "/admin/system/logs?level=error", {
          token,
        });
        const entry = logs.data.find((l) => l.category === "web" && pattern.test(l.message));
        if (entry) return entry;
        await new Promise((r) => setTimeout(r, 200));
      }
      return undefined;
    };
    const appErrorWarnings = async () =>
      (
        await apiJson<{ data: { health: { warnings: string[] } } }>(
          server,
          "GET",
          "/admin/system/dashboard",
          {
            token,
          },
        )
      ).data.health.warnings.filter((w) => w.includes("in people's apps"));

    const anonymous = await webEntry(/RangeError/);
    expect(anonymous?.message).toMatch(
      /^App error \(error\) on \/login: RangeError: bad date for \+614•+678$/,
    );
    expect(anonymous?.message).not.toContain("412345678");
    expect(anonymous?.details).toMatchObject({
      kind: "error",
      path: "/login",
      release: expect.stringMatching(/^[\w-]+\.js$/),
      user_id: null,
    });
    // Nobody signed in sent it: logged, but not a warning anyone could raise.
    expect(await appErrorWarnings()).toEqual([]);

    await openSignedIn(page, server, session);
    await page.evaluate(`setTimeout(() => { throw new TypeError("no unit for job 17"); })`);
    const signedIn = await webEntry(/no unit for job 17/);
    expect(signedIn?.details).toMatchObject({ kind: "error", user_id: session.user.id });
    expect(await appErrorWarnings()).toEqual([
      "1 error in people's apps in the last hour (system log, category web)",
    ]);
  });
});
