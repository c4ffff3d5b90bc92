import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
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

const INGEST_KEY = "e2e-admin-console-ingest-key";
const ADMIN_PHONE = "+61412555900";
const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

async function openUserMenu(page: Page) {
  await page.getByRole("button", { name: /^User menu/ }).click();
  return page.getByRole("menu");
}

describe.skipIf(!chromiumPath)("the admin console in Chromium", () => {
  let server: RunningServer;
  /** One admin sign-in for every browser of the file (code requests per phone are rate limited). */
  let admin: SignedInSession;
  const browsers: BrowserSession[] = [];

  beforeAll(async () => {
    server = await startServer({ ADMIN_PHONES: ADMIN_PHONE, INGEST_API_KEY: INGEST_KEY });
    admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin");
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
  });

  async function browser(options: Parameters<typeof openBrowser>[0] = {}) {
    const b = await openBrowser(options);
    browsers.push(b);
    return b;
  }

  /** An admin's browser on the console's Users tab. */
  async function adminOnUsersTab() {
    const { page, errors } = await browser();
    await openSignedIn(page, server, admin, "/admin/users");
    await page.getByRole("table", { name: "Users" }).waitFor({ timeout: 20_000 });
    return { page, errors };
  }

  it("lands an admin with no agency in the console on a desktop, opens it from the menu and the header, and never on a phone", async () => {
    const desktop = await browser();
    // This admin (ADMIN_PHONES) belongs to no agency: their feed would be empty, so they land in the console.
    await openSignedIn(desktop.page, server, admin);
    await desktop.page.getByRole("heading", { name: "Admin Console" }).waitFor();
    expect(new URL(desktop.page.url()).pathname).toBe("/admin/system");
    // The header's admin toggle goes back to the alerts, where the admin stays...
    await desktop.page.getByRole("button", { name: "Back to Alerts" }).click();
    await desktop.page.getByRole("heading", { name: "Alerts" }).waitFor();
    expect(new URL(desktop.page.url()).pathname).toBe("/");
    // ...and to the console again; so does the menu's 'Admin'.
    await desktop.page.getByRole("banner").getByRole("button", { name: "Admin", exact: true }).click();
    await desktop.page.getByRole("heading", { name: "Admin Console" }).waitFor();
    await desktop.page.getByRole("button", { name: "Back to Alerts" }).click();
    const menu = await openUserMenu(desktop.page);
    await menu.getByRole("menuitem", { name: "Admin" }).click();
    await desktop.page.getByRole("heading", { name: "Admin Console" }).waitFor();
    expect(new URL(desktop.page.url()).pathname).toBe("/admin/system");
    expect(await desktop.page.getByRole("tab").allTextContents()).toEqual([
      "System Monitor",
      "Receivers",
      "Users",
      "Alerts",
      "Agencies",
      "User Alerts",
      "SMS",
      "Message Grouping",
      "Feedback",
      "Security",
      "Displays",
    ]);
    // Reload keeps the tab: each has its own address.
    await desktop.page.getByRole("tab", { name: "Users" }).click();
    await desktop.page.reload();
    await desktop.page.getByRole("table", { name: "Users" }).waitFor({ timeout: 20_000 });
    expect(new URL(desktop.page.url()).pathname).toBe("/admin/users");
    expect(desktop.errors).toEqual([]);

    const phone = await browser({ userAgent: IPHONE_UA, viewport: { width: 390, height: 844 } });
    await openSignedIn(phone.page, server, admin);
    const phoneMenu = await openUserMenu(phone.page);
    await phoneMenu.getByRole("menuitem", { name: "My Alerts" }).waitFor();
    expect(await phoneMenu.getByRole("menuitem", { name: "Admin" }).count()).toBe(0);
    await phone.page.keyboard.press("Escape");
    await phone.page.goto(`${server.url}/admin/system`);
    await phone.page.getByRole("heading", { name: "Alerts" }).waitFor({ timeout: 20_000 });
    expect(new URL(phone.page.url()).pathname).toBe("/");
    expect(await phone.page.getByRole("heading", { name: "Admin Console" }).count()).toBe(0);
  });

  it("shows this machine's real Node version and database status on the System Monitor", async () => {
    const { page, errors } = await browser();
    await openSignedIn(page, server, admin, "/admin/system");
    const application = page.getByRole("region", { name: "Application" });
    await application.getByText(process.version).waitFor({ timeout: 20_000 });
    const database = page.getByRole("region", { name: "Database" });
    await database
      .getByText(/connected/i)
      .first()
      .waitFor();
    expect(await database.textContent()).toMatch(process.env.DATABASE_URL ? /PostgreSQL/i : /PGlite/i);
    expect(errors).toEqual([]);
  });

  it("ends a member's open page within 2 s of an admin deactivating them, and tells them so at sign-in", async () => {
    const member = await registerActiveAccount(server, "0412 555 311", {
      firstName: "Casey",
      lastName: "Deact",
    });
    const memberSession = await signInByApi(server, member.phone, "e2e-member-deact");
    const memberBrowser = await browser();
    await openSignedIn(memberBrowser.page, server, memberSession);

    const { page } = await adminOnUsersTab();
    const row = page.getByRole("row", { name: "Casey Deact" });
    await row.getByRole("button", { name: "Deactivate" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Deactivate User" });
    await confirm.getByRole("button", { name: "Deactivate" }).click();
    const clicked = Date.now();
    await memberBrowser.page.getByRole("alertdialog", { name: "Session Ended" }).waitFor({ timeout: 2_000 });
    expect(Date.now() - clicked).toBeLessThan(2_000);
    expect(await memberBrowser.page.getByText("You have been logged out by an administrator").count()).toBe(
      1,
    );
    await row.getByText(/inactive/i).waitFor();

    // Signing in again, the member is told their account was deactivated, in the server's words.
    await memberBrowser.page.getByRole("button", { name: "Go to Login" }).click();
    await memberBrowser.page.getByLabel("Phone number").fill("0412 555 311");
    await memberBrowser.page.getByRole("button", { name: "Send Code" }).click();
    const refusal = memberBrowser.page.getByRole("alert").filter({ hasText: "Account deactivated" });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      "Your account has been deactivated. Please contact your administrator.",
    );
    expect(await memberBrowser.page.getByText("Connection problem").count()).toBe(0);
    expect(await memberBrowser.page.getByRole("heading", { name: "Enter Code" }).count()).toBe(0);
  });

  it("delivers a new alert of an agency an admin just added to a member, live on their open feed", async () => {
    const ids = await agencyIds(server);
    await mapCapcode(server, admin.token, "0555321", ids.SES!);
    const member = await registerActiveAccount(server, "0412 555 312", {
      firstName: "Robin",
      lastName: "Added",
    });
    const memberSession = await signInByApi(server, member.phone, "e2e-member-added");
    // Paged before the member reads SES: it appears once SES is theirs, without a reload.
    await ingest(server, INGEST_KEY, [
      { capcode: "0555321", message: "Hb S261123455 TREE DOWN 3 OAK ST KANGAROO FLAT" },
    ]);
    const memberBrowser = await browser();
    await openSignedIn(memberBrowser.page, server, memberSession);
    await memberBrowser.page.locator('[data-connection="connected"]').waitFor({ timeout: 15_000 });
    expect(await memberBrowser.page.getByText(/TREE DOWN 3 OAK ST/).count()).toBe(0);

    const { page } = await adminOnUsersTab();
    await page.getByRole("button", { name: "Edit Robin Added" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit Robin Added" });
    await dialog.getByLabel("Agencies").click();
    await page.getByRole("option", { name: /\(SES\)/ }).click();
    await page.keyboard.press("Escape");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "hidden" });
    const agencies = await apiJson<{ data: Array<{ code: string }> }>(
      server,
      "GET",
      `/admin/users/${memberSession.user.id}/agencies`,
      { token: admin.token },
    );
    expect(agencies.data.map((a) => a.code).sort()).toEqual(["CFA", "SES"]);
    await memberBrowser.page
      .getByText(/TREE DOWN 3 OAK ST/)
      .first()
      .waitFor({ timeout: 10_000 });

    await ingest(server, INGEST_KEY, [
      { capcode: "0555321", message: "Hb S261123456 FLOOD ASSIST 22 UNDERWOOD ST GOLDEN SQUARE" },
    ]);
    await memberBrowser.page
      .getByText(/FLOOD ASSIST 22 UNDERWOOD ST/)
      .first()
      .waitFor({ timeout: 5_000 });
  });
});
