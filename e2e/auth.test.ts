import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

/** The newest 6-digit code texted to `phone` after `after` earlier messages. */
async function codeFrom(server: RunningServer, phone: string, after: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const mine = server.outbox().filter((m) => m.to === phone);
    const code = mine
      .slice(after)
      .at(-1)
      ?.body.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no code for ${phone}`);
}

/** The text of the newest SMS sent to `phone`, as the user would copy it. */
function smsTo(server: RunningServer, phone: string): string {
  const body = server
    .outbox()
    .filter((m) => m.to === phone)
    .at(-1)?.body;
  if (!body) throw new Error(`no SMS to ${phone}`);
  return body;
}

/** Puts `text` on the clipboard and pastes it into `field` with the keyboard (Ctrl+V), selecting what is there. */
async function pasteText(page: Page, text: string, field: Locator) {
  await page.evaluate((value) => navigator.clipboard.writeText(value), text);
  await field.focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Control+V");
}

const sent = (server: RunningServer, phone: string) => server.outbox().filter((m) => m.to === phone).length;

async function signInWithCode(page: Page, server: RunningServer, local: string, international: string) {
  await page.getByRole("button", { name: "Send Code" }).waitFor();
  const before = sent(server, international);
  await page.getByLabel("Phone number").fill(local);
  await page.getByRole("button", { name: "Send Code" }).click();
  await page.getByRole("heading", { name: "Enter Code" }).waitFor();
  // The code field takes the focus, and the whole SMS pasted there yields its code.
  const field = page.getByLabel("Verification code");
  await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true);
  const code = await codeFrom(server, international, before);
  await pasteText(page, smsTo(server, international), field);
  expect(await field.inputValue()).toBe(code);
  await page.getByRole("button", { name: "Verify Code" }).click();
}

/** Signed in: the token is stored and the user's menu is on the page. */
async function expectSignedIn(page: Page, fullName: string) {
  await page
    .getByRole("button", { name: new RegExp(`User menu for ${fullName}`) })
    .waitFor({ timeout: 15_000 });
  expect(await page.evaluate(() => localStorage.getItem("turnout_token"))).toMatch(/^[^.]+\.[^.]+\.[^.]+$/);
}

describe.skipIf(!chromiumPath)("accounts in Chromium", () => {
  let server: RunningServer;
  const browsers: BrowserSession[] = [];

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
  });

  async function browser() {
    const b = await openBrowser();
    await b.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    browsers.push(b);
    return b;
  }

  it("a new user creates an account, verifies it with the texted code and signs in", async () => {
    const { page, errors } = await browser();
    await page.goto(server.url);
    await page.getByRole("button", { name: "Create New Account" }).click();
    await page.getByRole("heading", { name: "Create Account" }).waitFor();

    const create = page.getByRole("button", { name: "Create Account" });
    expect(await create.isDisabled()).toBe(true);
    await page.getByLabel("First name").fill("Jordan");
    await page.getByLabel("Last name").fill("Walsh");
    await page.getByLabel("Phone number").fill("0412 777 001");
    await page.getByLabel("Agency").selectOption("CFA");
    // 'Richmond' exists in several states: the picker opens.
    await page.getByLabel("Location (postcode or suburb)").fill("Richmond");
    const picker = page.getByRole("dialog", { name: "Select Your Location" });
    await picker.waitFor({ timeout: 15_000 });
    // By keyboard: focus starts on the first match, Down moves, Enter picks.
    const focusedOption = () =>
      page.evaluate(() =>
        document.activeElement?.getAttribute("role") === "option" ? document.activeElement.textContent : null,
      );
    await expect.poll(focusedOption).not.toBeNull();
    const options = await picker.getByRole("option").allTextContents();
    const wanted = options.findIndex((text) => /RICHMOND.*VIC.*3121/i.test(text));
    expect(wanted).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < wanted; i += 1) await page.keyboard.press("ArrowDown");
    expect(await focusedOption()).toBe(options[wanted]);
    await page.keyboard.press("Enter");
    await page.getByLabel("Location selected").waitFor();
    expect(await create.isEnabled()).toBe(true);
    await create.click();

    await page.getByRole("heading", { name: "Verify Your Account" }).waitFor();
    expect(await page.getByText("Code expires in 10 minutes").isVisible()).toBe(true);
    const verify = page.getByRole("button", { name: "Verify Account" });
    const code = await codeFrom(server, "+61412777001", 0);
    await page.getByLabel("Activation code").fill(code.slice(0, 5));
    expect(await verify.isDisabled()).toBe(true);
    // The whole SMS pasted: the browser must not cut it to its first 6 characters.
    await pasteText(page, smsTo(server, "+61412777001"), page.getByLabel("Activation code"));
    expect(await page.getByLabel("Activation code").inputValue()).toBe(code);
    await verify.click();

    const verified = page.getByRole("dialog", { name: "Account Verified!" });
    await verified.waitFor();
    await verified.getByRole("button", { name: "Go to Login Now" }).click();

    await signInWithCode(page, server, "0412777001", "+61412777001");
    await expectSignedIn(page, "Jordan Walsh");
    expect(errors).toEqual([]);
  });

  it("a third device meets the maximum-devices dialog and signs another one out", async () => {
    const phone = "+61412777002";
    const reg = await fetch(`${server.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        first_name: "Casey",
        last_name: "Ng",
        phone,
        user_agency: "SES",
        postcode: "3220",
        town_name: "Geelong",
        state_name: "VIC",
      }),
    });
    expect(reg.status).toBe(201);
    const activate = await fetch(`${server.url}/api/auth/activate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ phone, activation_code: await codeFrom(server, phone, 0) }),
    });
    expect(activate.status).toBe(200);

    const first = await browser();
    await first.page.goto(server.url);
    await signInWithCode(first.page, server, phone, phone);
    await expectSignedIn(first.page, "Casey Ng");

    const second = await browser();
    await second.page.goto(server.url);
    await signInWithCode(second.page, server, phone, phone);
    await expectSignedIn(second.page, "Casey Ng");

    // A device that never signed in hears of the limit only once its code is right (issue 27): the
    // sessions it may choose from are shown to the phone's holder, not to anyone who knows the number.
    const third = await browser();
    await third.page.goto(server.url);
    await third.page.getByLabel("Phone number").fill(phone);
    const next = sent(server, phone);
    await third.page.getByRole("button", { name: "Send Code" }).click();
    await third.page.getByRole("heading", { name: "Enter Code" }).waitFor();
    await third.page.getByLabel("Verification code").fill(await codeFrom(server, phone, next));
    await third.page.getByRole("button", { name: "Verify Code" }).click();
    const dialog = third.page.getByRole("dialog", { name: "Maximum Devices Reached" });
    await dialog.waitFor();
    expect(await dialog.getByText(/IP address:/).count()).toBe(2);
    await dialog.getByRole("radio").first().check();
    await dialog.getByRole("button", { name: "Logout Selected Device & Continue" }).click();
    await expectSignedIn(third.page, "Casey Ng");

    // The first device was chosen (oldest first): its next check ends its session.
    await first.page.reload();
    const ended = first.page.getByRole("alertdialog", { name: "Session Ended" });
    await ended.waitFor({ timeout: 15_000 });
    expect(await ended.textContent()).toContain("Your session is invalid. Please log in again.");
    await first.page.waitForURL(/\/login$/, { timeout: 15_000 });
    await second.page.reload();
    await expectSignedIn(second.page, "Casey Ng");
  });
});
