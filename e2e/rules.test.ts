import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount, signInThroughUi } from "./support/accounts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

describe.skipIf(!chromiumPath)("My Alerts in Chromium", () => {
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

  it("creates a rule through preview and sees it pending", async () => {
    const { page, errors } = browser;
    const account = await registerActiveAccount(server, "0412 555 301");
    await signInThroughUi(page, server, account);

    await page.getByRole("button", { name: /^User menu/ }).click();
    await page.getByRole("menuitem", { name: "My Alerts" }).click();
    const dialog = page.getByRole("dialog", { name: "My Alerts" });
    await dialog.getByRole("heading", { name: "Your Alerts" }).waitFor();
    await dialog.getByText("You have no alerts yet.").waitFor();

    await dialog.getByRole("button", { name: "New Alert" }).click();
    await dialog.getByRole("heading", { name: "New Alert" }).waitFor();
    const preview = dialog.getByRole("button", { name: "Preview" });
    expect(await preview.isDisabled()).toBe(true);

    await dialog.getByRole("textbox", { name: "Alert name" }).fill("Bendigo structure fires");
    const first = dialog.getByRole("textbox", { name: "Keyword 1" });
    await first.pressSequentially("Bendigo ");
    expect(await first.inputValue()).toBe("bendigo");
    await dialog.getByRole("button", { name: "Add keyword" }).click();
    await dialog.getByRole("textbox", { name: "Keyword 2" }).fill("STRUCTURE");
    expect(await dialog.getByRole("textbox", { name: "Keyword 2" }).inputValue()).toBe("structure");
    await dialog.getByRole("checkbox", { name: "Emergency", exact: true }).check();
    await preview.click();

    await dialog.getByRole("heading", { name: "Preview: Bendigo structure fires" }).waitFor();
    await dialog.getByText(/matching messages? in the last 3 months/).waitFor();
    await dialog.getByRole("button", { name: "Create Alert" }).click();

    const listed = dialog.getByRole("listitem").filter({ hasText: "Bendigo structure fires" });
    await listed.waitFor();
    expect(await listed.getByText("Pending review").isVisible()).toBe(true);
    expect(await listed.getByRole("switch").count()).toBe(0);
    expect(await listed.getByRole("list", { name: "Keywords" }).textContent()).toBe("bendigostructure");
    expect(await dialog.getByRole("status").textContent()).toContain("Alert created");

    const saved = await fetch(`${server.url}/api/user-alerts`, {
      headers: {
        Authorization: `Bearer ${await page.evaluate(() => localStorage.getItem("turnout_token"))}`,
      },
    });
    expect(saved.status).toBe(200);
    expect((await saved.json()).data).toMatchObject([
      {
        name: "Bendigo structure fires",
        keywords: ["bendigo", "structure"],
        priority_levels: ["emergency"],
        status: "pending",
      },
    ]);
    expect(errors).toEqual([]);
  });
});
