import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MessageMediaStandIn,
  startMessageMediaStandIn,
} from "../server/src/testing/messagemedia-stand-in.js";
import { registerActiveAccount, smsCountTo, waitForSmsCode } from "./support/accounts.js";
import {
  agencyIds,
  apiJson,
  ingest,
  mapCapcode,
  openSignedIn,
  type SignedInSession,
  signInByApi,
} from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const INGEST_KEY = "e2e-admin-tabs-ingest-key";
const ADMIN_PHONE = "+61412556900";
/** A real PNG from the app's own icons, uploaded as an agency logo. */
const LOGO_PNG = readFileSync(path.resolve(import.meta.dirname, "../web/public/icons/icon-48.png"));

/** The admin-context alert card of one alert, found by its id. */
function alertCard(page: Page, alertId: number) {
  return page.locator(`article[data-alert-id="${alertId}"]`);
}

/** The CSV the Agencies tab's export downloads (the capcodes saved, in PagerMon's columns). */
async function exportedCapcodes(server: RunningServer, token: string): Promise<string> {
  const res = await fetch(`${server.url}/api/admin/capcodes/export`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe.skipIf(!chromiumPath)("the admin console's tabs in Chromium, against the real server", () => {
  let server: RunningServer;
  /** One admin sign-in for every browser of the file (code requests per phone are rate limited). */
  let admin: SignedInSession;
  /** The admin's one browser, taken from tab to tab (a launch costs more than a page load). */
  let adminBrowser: BrowserSession;
  const browsers: BrowserSession[] = [];

  beforeAll(async () => {
    server = await startServer({ ADMIN_PHONES: ADMIN_PHONE, INGEST_API_KEY: INGEST_KEY });
    admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin-tabs");
    adminBrowser = await openBrowser();
    browsers.push(adminBrowser);
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
  });

  /** The admin's browser freshly opened on one tab of the console, with no page errors recorded yet. */
  async function adminOn(tab: string) {
    adminBrowser.errors.length = 0;
    await openSignedIn(adminBrowser.page, server, admin, `/admin/${tab}`);
    return adminBrowser;
  }

  it("assigns an unmapped capcode from its alert in the Alerts tab, and the alert moves to the agency", async () => {
    const [alertId] = await ingest(server, INGEST_KEY, [
      { capcode: "0556401", message: "@@ALERT F261100001 GRASS1 GRASS FIRE 4 PIPER ST KYNETON" },
    ]);
    const { page, errors } = await adminOn("alerts");
    const card = alertCard(page, alertId!);
    await card.waitFor({ timeout: 20_000 });
    expect(await card.getAttribute("aria-label")).toMatch(/from Unmapped Capcodes$/);

    await card.getByRole("button", { name: "Assign capcode 0556401" }).click();
    const dialog = page.getByRole("dialog", { name: "Assign Capcode 0556401" });
    await dialog.getByLabel("Agency").selectOption({ label: "Country Fire Authority (CFA)" });
    await dialog.getByLabel("Alias").fill("Kyneton Pumper");
    await dialog.getByRole("button", { name: "Assign" }).click();

    const done = page.getByRole("dialog", { name: "Capcode Assigned!" });
    await done.waitFor();
    expect(await done.textContent()).toContain(
      "Capcode 0556401 (Kyneton Pumper) is now assigned to Country Fire Authority.",
    );
    // The feed reloads: the same alert now belongs to the agency and offers no assignment.
    await page
      .locator(`article[data-alert-id="${alertId}"][aria-label$="from Country Fire Authority"]`)
      .waitFor({ timeout: 5_000 });
    expect(await card.getByRole("button", { name: /^Assign capcode/ }).count()).toBe(0);
    // The popup closes by itself after 3 s.
    await done.waitFor({ state: "hidden", timeout: 5_000 });
    expect(errors).toEqual([]);
  });

  it("creates an agency with a logo in the Agencies tab, and its alerts carry that logo", async () => {
    const { page, errors } = await adminOn("agencies");
    await page.getByRole("button", { name: "New Agency" }).click();
    const form = page.getByRole("dialog", { name: "New Agency" });
    await form.getByLabel("Name").fill("Wombat Valley Rescue");
    await form.getByLabel("Code").fill("wvr");
    await form.getByRole("button", { name: "Create" }).click();
    await form.waitFor({ state: "hidden" });
    const row = page.getByRole("row", { name: /Wombat Valley Rescue/ });
    await row.waitFor();
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("WVR");

    await row.getByRole("button", { name: "Logo of Wombat Valley Rescue" }).click();
    const logoDialog = page.getByRole("dialog", { name: "Logo of Wombat Valley Rescue" });
    await logoDialog.getByText("No logo").waitFor();
    await logoDialog
      .locator('input[type="file"]')
      .setInputFiles({ name: "wombat.png", mimeType: "image/png", buffer: LOGO_PNG });
    await logoDialog.getByRole("img", { name: "Logo preview" }).waitFor();
    await logoDialog.getByRole("button", { name: "Upload" }).click();
    const current = logoDialog.getByRole("img", { name: "Current logo of Wombat Valley Rescue" });
    await current.waitFor();
    const logoPath = new URL((await current.getAttribute("src"))!, server.url).pathname;
    await logoDialog.getByRole("button", { name: "Close" }).click();
    await row.getByRole("img", { name: "Logo of Wombat Valley Rescue" }).waitFor();

    const { WVR: agencyId } = await apiJson<{ data: Array<{ id: number; code: string }> }>(
      server,
      "GET",
      "/admin/agencies",
      { token: admin.token },
    ).then((reply) => Object.fromEntries(reply.data.map((a) => [a.code, a.id])));
    await mapCapcode(server, admin.token, "0556402", agencyId!);
    const [alertId] = await ingest(server, INGEST_KEY, [
      { capcode: "0556402", message: "@@ALERT F261100002 RESC1 TREE DOWN 9 MAIN RD WOMBAT" },
    ]);

    expect(errors).toEqual([]);
    await adminOn("alerts");
    const card = alertCard(page, alertId!);
    await card.waitFor({ timeout: 20_000 });
    const chip = card.getByRole("button", { name: "Show only Wombat Valley Rescue alerts" });
    const img = chip.locator("img");
    expect(new URL((await img.getAttribute("src"))!, server.url).pathname).toBe(logoPath);
    // The uploaded picture really loads on the card (served under the CSP's img-src).
    await expect
      .poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth), { timeout: 5_000 })
      .toBe(48);
    expect(errors).toEqual([]);
  });

  it("imports a PagerMon capcode CSV in the Agencies tab: a preview that saves nothing, then apply", async () => {
    const { page, errors } = await adminOn("agencies");
    await page.getByRole("button", { name: "Import CSV" }).click();
    const dialog = page.getByRole("dialog", { name: "Import Capcodes (PagerMon CSV)" });
    await dialog
      .getByRole("textbox", { name: "CSV" })
      .fill(
        [
          "id,address,alias,agency,icon,color,pluginconf,ignore",
          "1,0556501,Golden Square Pumper,CFA,fire,red,{},0",
          "2,0556502,Bendigo Unit,SES,,,{},0",
          "3,0556503,Nobody,Fire Brigade Of Nowhere,,,{},0",
        ].join("\n"),
      );
    const apply = dialog.getByRole("button", { name: "Apply" });
    expect(await apply.isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Preview" }).click();

    const summary = dialog.getByRole("status");
    await summary.getByText(/^Preview \(nothing saved yet\)/).waitFor();
    expect(await summary.textContent()).toBe(
      "Preview (nothing saved yet): 2 to create, 0 to change, 0 unchanged, 1 refused.",
    );
    expect(await dialog.getByRole("region", { name: "Will be created" }).textContent()).toContain(
      "Line 2: 0556501 → CFA · Golden Square Pumper",
    );
    expect(await dialog.getByRole("region", { name: "Refused" }).textContent()).toContain("Line 4:");
    expect(await exportedCapcodes(server, admin.token)).not.toContain("0556501");

    await apply.click();
    await summary.getByText(/^Imported:/).waitFor();
    expect(await summary.textContent()).toBe("Imported: 2 created, 0 changed, 0 unchanged, 1 refused.");
    const saved = await exportedCapcodes(server, admin.token);
    expect(saved).toMatch(/,0556501,Golden Square Pumper,CFA,/);
    expect(saved).toMatch(/,0556502,Bendigo Unit,SES,/);
    expect(saved).not.toContain("0556503");
    expect(errors).toEqual([]);
  });

  it("sets up a brigade: a CFA unit with a place and a capcode, given to a member whose feed then shows only its jobs", async () => {
    const { CFA: cfaId } = await agencyIds(server);
    for (const [capcode, alias] of [
      ["0556601", "Kangaroo Flat Pumper"],
      ["0556602", "Doveton Pumper"],
    ]) {
      await apiJson(server, "POST", "/admin/capcodes", {
        token: admin.token,
        body: { capcode, agency_id: cfaId, alias },
      });
    }
    const [ownJob, otherJob] = await ingest(server, INGEST_KEY, [
      { capcode: "0556601", message: "@@ALERT F261100601 STRUC1 SHED FIRE 14 HIGH ST KANGAROO FLAT" },
      { capcode: "0556602", message: "@@ALERT F261100602 GRASS1 GRASS FIRE 2 PRINCES HWY DOVETON" },
    ]);
    const member = await registerActiveAccount(server, "0412 556 303", {
      firstName: "Kim",
      lastName: "Brigade",
    });
    const memberBrowser = await openBrowser();
    browsers.push(memberBrowser);
    const memberSession = await signInByApi(server, member.phone, "e2e-unit-member");
    const feed = memberBrowser.page;
    // Without a unit the member reads all of CFA, as before.
    await openSignedIn(feed, server, memberSession);
    await alertCard(feed, ownJob!).waitFor({ timeout: 20_000 });
    await alertCard(feed, otherJob!).waitFor();

    const { page, errors } = await adminOn("agencies");
    await page.getByRole("button", { name: "Units of Country Fire Authority" }).click({ timeout: 20_000 });
    const units = page.getByRole("dialog", { name: "Units of Country Fire Authority" });
    await units
      .getByText("Group capcodes into brigades or units so members see their own jobs first.")
      .waitFor();
    await units.getByRole("button", { name: "Add unit" }).click();
    const form = page.getByRole("dialog", { name: "New unit of Country Fire Authority" });
    await form.getByRole("textbox", { name: "Name", exact: true }).fill("Kangaroo Flat");
    await form.getByRole("textbox", { name: "Code", exact: true }).fill("kang");
    // The registration screen's search: postcode 3555 has several localities, so the picker opens.
    await form.getByRole("textbox", { name: /^Place/ }).fill("3555");
    await page
      .getByRole("dialog", { name: "Select the unit's place" })
      .getByRole("option", { name: /^Kangaroo Flat/i })
      .click();
    await form.getByText(/^Selected: Kangaroo Flat, VIC 3555$/i).waitFor();
    await form.getByRole("button", { name: "Add unit" }).click();
    await units.getByRole("status").getByText("Unit Kangaroo Flat added.").waitFor();
    const row = units.getByRole("row", { name: /^Kangaroo Flat/ });
    expect(await row.getByRole("cell").nth(1).textContent()).toMatch(/^Kangaroo Flat, VIC 3555$/i);

    await row.getByRole("button", { name: "Capcodes of unit Kangaroo Flat" }).click();
    const chooser = page.getByRole("dialog", { name: "Capcodes of unit Kangaroo Flat" });
    await chooser.getByLabel("Search capcodes").fill("0556601");
    await chooser.getByRole("checkbox", { name: "0556601 Kangaroo Flat Pumper" }).check();
    await chooser.getByRole("button", { name: "Save" }).click();
    await units.getByRole("status").getByText("Kangaroo Flat is paged on 1 capcode.").waitFor();
    await row.getByText("0556601 Kangaroo Flat Pumper").waitFor();
    expect(errors).toEqual([]);

    await adminOn("users");
    await page.getByLabel("Search users").fill("Brigade");
    await page.getByRole("button", { name: "Edit Kim Brigade" }).click({ timeout: 20_000 });
    const edit = page.getByRole("dialog", { name: "Edit Kim Brigade" });
    await edit.getByRole("combobox", { name: "Units" }).click();
    await page.getByRole("option", { name: "Kangaroo Flat (KANG)" }).click();
    await page.keyboard.press("Escape");
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").getByText("Kim Brigade was saved.").waitFor();
    expect(
      await apiJson<{ data: Array<{ name: string }> }>(
        server,
        "GET",
        `/admin/users/${memberSession.user.id}/units`,
        {
          token: admin.token,
        },
      ),
    ).toMatchObject({ data: [{ name: "Kangaroo Flat" }] });
    expect(errors).toEqual([]);

    // The member's feed now opens on their unit: the brigade's job, not the other CFA one.
    await feed.reload();
    await alertCard(feed, ownJob!).waitFor({ timeout: 20_000 });
    expect(await alertCard(feed, otherJob!).count()).toBe(0);
    expect(memberBrowser.errors).toEqual([]);
  });

  it("approves a pending rule in the User Alerts tab: the badge drops and the member is texted", async () => {
    const member = await registerActiveAccount(server, "0412 556 301", {
      firstName: "Riley",
      lastName: "Rule",
    });
    const memberSession = await signInByApi(server, member.phone, "e2e-rule-owner");
    await apiJson(server, "POST", "/user-alerts", {
      token: memberSession.token,
      body: { name: "Kyneton haysheds", keywords: ["hayshed", "kyneton"] },
    });

    const { page, errors } = await adminOn("user-alerts");
    await page.getByRole("tab", { name: "User Alerts, 1 pending" }).waitFor({ timeout: 20_000 });
    const rule = page.getByRole("listitem", { name: "Kyneton haysheds" });
    await rule.getByText("Pending review").waitFor();
    await rule.getByRole("button", { name: "Approve" }).click();

    await rule.getByText("Approved", { exact: true }).waitFor();
    await page.getByRole("tab", { name: "User Alerts", exact: true }).waitFor();
    expect(await page.getByText("0 waiting for review").count()).toBe(1);
    await expect
      .poll(() => server.outbox().filter((m) => m.to === member.phone && /was approved/.test(m.body)), {
        timeout: 10_000,
      })
      .toEqual([
        expect.objectContaining({ body: expect.stringContaining('"Kyneton haysheds" was approved') }),
      ]);
    expect(errors).toEqual([]);
  });

  it("adds a job-number pattern in the Message Grouping tab, and the test box finds a job number with it", async () => {
    const { page, errors } = await adminOn("message-grouping");
    const tester = page.getByRole("region", { name: "Test a message" });
    const message = tester.getByLabel("Pager message");
    await message.fill("WOMBAT INCIDENT WV-77341 TREE ACROSS ROAD MAIN RD WOMBAT");
    await tester.getByRole("button", { name: "Test" }).click();
    const result = tester.getByRole("status", { name: "Test result" });
    await result.getByText("No job number found: not grouped").waitFor();

    await page.getByRole("button", { name: "New pattern" }).click();
    const dialog = page.getByRole("dialog", { name: "New Pattern" });
    await dialog.getByRole("textbox", { name: "Name" }).fill("Wombat incidents");
    await dialog.getByRole("textbox", { name: "Pattern" }).fill("\\bWV-(\\d{5})\\b");
    await dialog.getByRole("textbox", { name: "Priority" }).fill("1");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page
      .getByRole("table", { name: "Patterns" })
      .getByRole("row", { name: /Wombat incidents/ })
      .waitFor();

    await tester.getByRole("button", { name: "Test" }).click();
    await result.getByText("Job number: 77341").waitFor();
    expect(await result.textContent()).toContain("Found by: pattern “Wombat incidents”");
    expect(errors).toEqual([]);
  });

  it("lowers max_device_sessions in the Security tab, and the member's next sign-in meets the new limit", async () => {
    const member = await registerActiveAccount(server, "0412 556 302", {
      firstName: "Sam",
      lastName: "Limit",
    });
    await signInByApi(server, member.phone, "e2e-limit-first-device");
    const { page, errors } = await adminOn("security");
    try {
      const table = page.getByRole("table", { name: "Security configuration" });
      const row = table.getByRole("row", { name: /max_device_sessions/ });
      await row.getByRole("cell", { name: "2", exact: true }).first().waitFor({ timeout: 20_000 });
      await row.getByRole("button", { name: "Edit max_device_sessions" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit max_device_sessions" });
      await dialog.getByLabel("Value").fill("1");
      await dialog.getByRole("button", { name: "Save" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(await row.getByRole("cell").allTextContents()).toEqual([
        "max_device_sessions",
        expect.any(String),
        "1",
        "2",
        "Edit",
      ]);

      // A second device was within the default of 2; with 1 it must first sign the other one out.
      const phone = await openBrowser();
      browsers.push(phone);
      await phone.page.goto(server.url);
      await phone.page.getByLabel("Phone number").fill(member.phone);
      const before = smsCountTo(server, member.phone);
      await phone.page.getByRole("button", { name: "Send Code" }).click();
      // A new device hears of the limit once its code is right (issue 27).
      await phone.page.getByRole("heading", { name: "Enter Code" }).waitFor();
      await phone.page
        .getByLabel("Verification code")
        .fill(await waitForSmsCode(server, member.phone, before));
      await phone.page.getByRole("button", { name: "Verify Code" }).click();
      const limit = phone.page.getByRole("dialog", { name: "Maximum Devices Reached" });
      await limit.waitFor();
      expect(await limit.getByText(/IP address:/).count()).toBe(1);
      expect(phone.errors).toEqual([]);
    } finally {
      await apiJson(server, "PUT", "/admin/security/config/max_device_sessions", {
        token: admin.token,
        body: { value: 2 },
      });
    }
    expect(errors).toEqual([]);
  });

  it("shows a burst's pages in the Alerts tab, not only the newest the server sent live", async () => {
    const { page, errors } = await adminOn("alerts");
    // In the admins' room once a page comes live; the read that joining starts has then been asked.
    const [before] = await ingest(server, INGEST_KEY, [
      { capcode: "0556499", message: "@@ALERT F261100900 BEFORE THE BURST GRASS FIRE" },
    ]);
    await alertCard(page, before!).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1_000);
    // One batch of 30: the admins' room gets the first 10 one by one, then one refresh for the rest
    // naming only the newest (issue 14); the 29th comes only from reading the first page again.
    const ids = await ingest(
      server,
      INGEST_KEY,
      Array.from({ length: 30 }, (_, i) => ({
        capcode: "0556499",
        message: `@@ALERT F2611009${String(i + 1).padStart(2, "0")} BURST PAGE ${i + 1} OF 30 GRASS FIRE`,
      })),
    );
    await alertCard(page, ids[29]!).waitFor({ timeout: 15_000 });
    await alertCard(page, ids[28]!).waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!chromiumPath)("the SMS tab in Chromium, against the MessageMedia stand-in", () => {
  const CREDENTIALS = { apiKey: "e2e-mm-key", apiSecret: "e2e-mm-secret" };
  const SMS_ADMIN_PHONE = "+61412556950";
  let standIn: MessageMediaStandIn;
  let server: RunningServer;
  let browser: BrowserSession;

  /** Signs in through the API, reading the code from what the stand-in accepted (the outbox is unused). */
  async function signInThroughStandIn(phone: string): Promise<SignedInSession> {
    const before = standIn.accepted.length;
    await apiJson(server, "POST", "/auth/request-otp", { body: { phone } });
    await expect.poll(() => standIn.accepted.length, { timeout: 10_000 }).toBeGreaterThan(before);
    const code = /\b(\d{6})\b/.exec(standIn.accepted.at(-1)!.content)![1]!;
    const reply = await apiJson<{ data: SignedInSession }>(server, "POST", "/auth/verify-otp", {
      body: { phone, otp_code: code },
      headers: { "X-Device-ID": "e2e-sms-admin" },
    });
    return reply.data;
  }

  beforeAll(async () => {
    standIn = await startMessageMediaStandIn(CREDENTIALS);
    server = await startServer({
      ADMIN_PHONES: SMS_ADMIN_PHONE,
      SMS_PROVIDER: "http",
      SMS_HTTP_URL: standIn.url,
      SMS_HTTP_API_KEY: CREDENTIALS.apiKey,
      SMS_HTTP_API_SECRET: CREDENTIALS.apiSecret,
      SMS_HTTP_TIMEOUT_MS: "2000",
      SMS_SENDER: "Turnout",
    });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await standIn?.close();
  });

  it("retries an SMS the gateway refused once it recovers, and the SMS tab shows it sent", async () => {
    const admin = await signInThroughStandIn(SMS_ADMIN_PHONE);
    const created = await apiJson<{ data: { id: number } }>(server, "POST", "/user-alerts", {
      token: admin.token,
      body: { name: "Wombat floods", keywords: ["flood", "wombat"] },
    });
    // The gateway refuses the approval SMS for good (account disabled): it fails at its first attempt.
    standIn.script({ status: 403, body: { message: "Feature disabled" } });
    await apiJson(server, "POST", `/admin/user-alerts/${created.data.id}/approve`, { token: admin.token });
    await expect.poll(() => standIn.sendAttempts(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(standIn.accepted.filter((m) => m.content.includes("was approved"))).toEqual([]);

    const { page, errors } = browser;
    await openSignedIn(page, server, admin, "/admin/sms");
    const table = page.getByRole("table", { name: "SMS queue" });
    const row = table.getByRole("row", { name: /"Wombat floods" was approved/ });
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("failed");
    expect(await row.getByRole("cell").nth(5).textContent()).toContain("403");

    // The gateway has recovered (the stand-in accepts again): the admin retries that one SMS.
    // Phones are personal data: the queue shows them masked.
    const masked = "+614•••••950";
    expect(await row.getByRole("cell").first().textContent()).toBe(masked);
    await row.getByRole("button", { name: new RegExp(`^Retry SMS \\d+ to \\${masked}$`) }).click();
    await expect
      .poll(() => standIn.accepted.filter((m) => m.content.includes('"Wombat floods" was approved')).length, {
        timeout: 10_000,
      })
      .toBe(1);
    expect(standIn.accepted.at(-1)).toMatchObject({
      destination_number: SMS_ADMIN_PHONE,
      source_number: "Turnout",
    });
    // The queue list does not poll; the admin sees the outcome on reopening the tab.
    await expect
      .poll(
        async () =>
          (
            await apiJson<{ data: Array<{ body: string | null; status: string }> }>(
              server,
              "GET",
              "/admin/sms/queue",
              { token: admin.token },
            )
          ).data.find((m) => m.body?.includes('"Wombat floods" was approved'))?.status,
        { timeout: 10_000 },
      )
      .toBe("sent");
    await page.reload();
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("sent");
    // A retry starts the count again: one attempt, the one that went through.
    expect(await row.getByRole("cell").nth(4).textContent()).toBe("1 of 5");
    expect(errors).toEqual([]);
  });
});
