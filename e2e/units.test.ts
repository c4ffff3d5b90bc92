import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInThroughUi, waitForSmsCode } from "./support/accounts.js";
import { agencyIds, apiJson, ingest, mapCapcode, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

// Brigades and units (issue 26), as a new member meets them: registration offers the units near the
// place they enter, their feed shows their brigade's jobs, every CFA job is one tap away, and live
// alerts follow the view.

const INGEST_KEY = "e2e-ingest-key-for-the-units";
const ADMIN_PHONE = "+61400000961";
const KANGAROO_FLAT = "1262001";
const HOTHAM = "1262002";

const card = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });

describe.skipIf(!chromiumPath)("brigades and units in Chromium", () => {
  let server: RunningServer;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer({ INGEST_API_KEY: INGEST_KEY, ADMIN_PHONES: ADMIN_PHONE });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin");
    const agencies = await agencyIds(server);
    await mapCapcode(server, admin.token, KANGAROO_FLAT, agencies.CFA!);
    await mapCapcode(server, admin.token, HOTHAM, agencies.CFA!);
    const capcodes = await apiJson<{ data: { id: number; capcode: string }[] }>(
      server,
      "GET",
      `/admin/agencies/${agencies.CFA}/capcodes`,
      { token: admin.token },
    );
    const idOf = (capcode: string) => capcodes.data.find((c) => c.capcode === capcode)!.id;
    // Placed by their names: Hotham Heights is only in Victoria, so Kangaroo Flat is the Victorian one.
    for (const [name, capcode] of [
      ["Hotham Heights", HOTHAM],
      ["Kangaroo Flat", KANGAROO_FLAT],
    ] as const) {
      const unit = await apiJson<{ data: { id: number } }>(
        server,
        "POST",
        `/admin/agencies/${agencies.CFA}/units`,
        {
          token: admin.token,
          body: { name },
        },
      );
      await apiJson(server, "PUT", `/admin/units/${unit.data.id}/capcodes`, {
        token: admin.token,
        body: { capcode_ids: [idOf(capcode)] },
      });
    }
    await ingest(server, INGEST_KEY, [
      {
        capcode: KANGAROO_FLAT,
        message: "@@ALERT F261127001 KANG1 STRUC1 OUR SHED FIRE 3 HIGH ST KANGAROO FLAT",
      },
      { capcode: HOTHAM, message: "@@ALERT F261127002 HOTH1 ALARC1 THEIR ALARM HOTHAM HEIGHTS" },
    ]);
    browser = await openBrowser({ viewport: { width: 390, height: 844 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("offers the nearest units at registration, shows the brigade's jobs, and every CFA job after one tap, live too", async () => {
    const { page } = browser;
    const phone = "+61412555962";
    await page.goto(`${server.url}/`);
    await page.getByRole("button", { name: "Create New Account" }).click();
    await page.getByLabel("First name").fill("Alex");
    await page.getByLabel("Last name").fill("Brigade");
    await page.getByLabel("Phone number").fill("0412 555 962");
    await page.getByLabel("Agency").selectOption("CFA");
    await page.getByLabel("Location (postcode or suburb)").fill("Kangaroo Flat");
    await page.getByRole("option", { name: /Kangaroo Flat.*VIC 3555/i }).click();
    const offered = page.getByRole("group", { name: /Your brigade or unit/ }).getByRole("checkbox");
    await offered.first().waitFor();
    const labels = await page
      .getByRole("group", { name: /Your brigade or unit/ })
      .locator("label")
      .allTextContents();
    expect(labels[0]).toBe("Kangaroo Flat \u00b7 0 km");
    expect(labels[1]).toMatch(/^Hotham Heights \u00b7 2\d\d km$/);
    await page.getByRole("checkbox", { name: /Kangaroo Flat/ }).check();
    await page.getByRole("button", { name: "Create Account" }).click();
    await page.getByLabel("Activation code").fill(await waitForSmsCode(server, phone));
    await page.getByRole("button", { name: "Verify Account" }).click();
    await page.getByText("Account Verified!").waitFor();

    await signInThroughUi(page, server, { phone, firstName: "Alex", lastName: "Brigade" });
    const mine = page.getByRole("button", { name: "My units: Kangaroo Flat" });
    await mine.waitFor();
    expect(await mine.getAttribute("aria-pressed")).toBe("true");
    await card(page, "OUR SHED FIRE").waitFor();
    expect(await card(page, "THEIR ALARM").count()).toBe(0);
    await page.locator('[data-connection="connected"]').waitFor();

    await page.getByRole("button", { name: "All of CFA" }).click();
    await card(page, "THEIR ALARM").waitFor();
    expect(await card(page, "OUR SHED FIRE").count()).toBe(1);
    await ingest(server, INGEST_KEY, [
      { capcode: HOTHAM, message: "@@ALERT F261127003 HOTH1 THEIR LIVE GRASS FIRE" },
    ]);
    await card(page, "THEIR LIVE GRASS FIRE").waitFor({ timeout: 5_000 });

    await mine.click();
    await card(page, "OUR SHED FIRE").waitFor();
    await expect.poll(() => card(page, "THEIR").count()).toBe(0);
    await ingest(server, INGEST_KEY, [
      { capcode: HOTHAM, message: "@@ALERT F261127004 HOTH1 THEIR SECOND LIVE JOB" },
      { capcode: KANGAROO_FLAT, message: "@@ALERT F261127005 KANG1 OUR LIVE JOB" },
    ]);
    await card(page, "OUR LIVE JOB").waitFor({ timeout: 5_000 });
    expect(await card(page, "THEIR SECOND LIVE JOB").count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
