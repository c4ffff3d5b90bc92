import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
import { openSignedIn, type SignedInSession, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const ADMIN_PHONE = "+61412555950";

const hasFfmpeg = (() => {
  try {
    execFileSync("ffmpeg", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Runs Debian's ffmpeg quietly (the test's own photo and phone-style video). */
function ffmpeg(args: string[]): void {
  execFileSync("ffmpeg", ["-v", "error", "-y", ...args], { stdio: "inherit" });
}

async function openFeedback(page: Page) {
  await page.getByRole("button", { name: /^User menu/ }).click();
  await page
    .getByRole("menu")
    .getByRole("menuitem", { name: /Feedback/ })
    .click();
  const dialog = page.getByRole("dialog", { name: "My Feedback" });
  await dialog.waitFor();
  return dialog;
}

describe.skipIf(!chromiumPath || !hasFfmpeg)("feedback with a photo and a video in Chromium", () => {
  let server: RunningServer;
  let admin: SignedInSession;
  let member: SignedInSession;
  let media: string;
  const browsers: BrowserSession[] = [];

  beforeAll(async () => {
    media = mkdtempSync(path.join(tmpdir(), "turnout-e2e-feedback-"));
    // A photo, and an iPhone-style QuickTime video (MPEG-4 part 2 + AAC), which browsers cannot play
    // until the server has converted it to H.264 mp4.
    ffmpeg(["-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1", path.join(media, "street.png")]);
    ffmpeg([
      ...["-f", "lavfi", "-i", "testsrc=duration=12:size=640x360:rate=25"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:duration=12"],
      ...["-c:v", "mpeg4", "-q:v", "5", "-c:a", "aac", path.join(media, "clip.mov")],
    ]);
    server = await startServer({ ADMIN_PHONES: ADMIN_PHONE });
    admin = await signInByApi(server, ADMIN_PHONE, "e2e-feedback-admin");
    const account = await registerActiveAccount(server, "0412 555 951", {
      firstName: "Sam",
      lastName: "Pin",
    });
    member = await signInByApi(server, account.phone, "e2e-feedback-member");
  });
  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
    if (media) rmSync(media, { recursive: true, force: true });
  });

  async function browser() {
    const b = await openBrowser();
    browsers.push(b);
    return b;
  }

  it("a member's photo reaches the admin's Feedback tab live, and the answer lights the member's badge", async () => {
    const adminBrowser = await browser();
    await openSignedIn(adminBrowser.page, server, admin, "/admin/feedback");
    await adminBrowser.page
      .getByText("Select a conversation to read and answer it.")
      .waitFor({ timeout: 20_000 });

    const memberBrowser = await browser();
    const page = memberBrowser.page;
    await openSignedIn(page, server, member);
    const dialog = await openFeedback(page);
    await dialog.getByRole("button", { name: "New feedback" }).click();
    const form = dialog.getByRole("form", { name: "New feedback" });
    await form.getByRole("textbox", { name: /Subject/ }).fill("Wrong pin for Underwood St");
    await form.getByRole("textbox", { name: /Message/ }).fill("The map puts 22 Underwood St in the river.");
    await form.getByLabel("Photo or video").setInputFiles(path.join(media, "street.png"));
    await form.getByRole("button", { name: "Send feedback" }).click();
    await dialog.getByRole("heading", { name: "Wrong pin for Underwood St" }).waitFor({ timeout: 20_000 });
    // The thumbnail the server made (sharp) is on screen and really decoded.
    const thumbnail = dialog.getByRole("img", { name: "street.png" });
    await thumbnail.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth), { timeout: 10_000 })
      .toBeGreaterThan(0);

    // The member closes the dialog (an open thread would mark the answer read as it arrives).
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });

    // Live: the admin's list gains the conversation, the tab its unread badge, without a reload.
    const adminPage = adminBrowser.page;
    await adminPage.getByRole("tab", { name: /^Feedback, \d+ unread$/ }).waitFor({ timeout: 10_000 });
    const row = adminPage
      .getByRole("list", { name: "Conversations" })
      .getByRole("button", { name: /Wrong pin/ });
    await row.waitFor({ timeout: 10_000 });
    await row.click();
    const adminThumbnail = adminPage.getByRole("img", { name: "street.png" });
    await adminThumbnail.waitFor({ timeout: 10_000 });
    await adminPage.getByRole("textbox", { name: "Reply" }).fill("Thanks Sam, the pin is fixed.");
    await adminPage.getByRole("button", { name: "Send" }).click();
    await adminPage.getByText("Thanks Sam, the pin is fixed.").waitFor();
    // Opening it marked it read: the tab's badge goes.
    await adminPage.getByRole("tab", { name: "Feedback", exact: true }).waitFor({ timeout: 10_000 });

    // The answer shows on the member's page as a badge of 1: on the avatar and on the menu item.
    await page
      .getByRole("button", { name: /^User menu/ })
      .locator("span", { hasText: /^1$/ })
      .waitFor({
        timeout: 40_000,
      });
    await page.getByRole("button", { name: /^User menu/ }).click();
    const item = page.getByRole("menu").getByRole("menuitem", { name: /Feedback/ });
    expect(await item.textContent()).toBe("1Feedback");
    expect(adminBrowser.errors).toEqual([]);
    expect(memberBrowser.errors).toEqual([]);
  });

  it("a .mov shows 'Converting video...' and then plays as mp4", async () => {
    const { page, errors } = await browser();
    await openSignedIn(page, server, member);
    const dialog = await openFeedback(page);
    await dialog.getByRole("button", { name: /Wrong pin/ }).click();
    await dialog.getByRole("list", { name: "Messages" }).waitFor();
    await dialog.getByLabel("Photo or video").setInputFiles(path.join(media, "clip.mov"));
    await dialog.getByRole("textbox", { name: "Reply" }).fill("And a video of it");
    await dialog.getByRole("button", { name: "Send" }).click();
    await dialog.getByText("Converting video...").waitFor({ timeout: 20_000 });

    // Until the live event says the conversion is done; then a real mp4 that Chromium decodes.
    const video = dialog.locator('video[aria-label="Video clip.mov"]');
    await video.waitFor({ timeout: 60_000 });
    expect(await dialog.getByText("Converting video...").count()).toBe(0);
    const played = await video.evaluate(async (element) => {
      const v = element as HTMLVideoElement;
      v.muted = true;
      await v.play();
      await new Promise((resolve) => setTimeout(resolve, 500));
      return { src: v.currentSrc, width: v.videoWidth, time: v.currentTime };
    });
    expect(played.src).toMatch(/\/feedback-uploads\/[0-9a-f]+\.mp4\?/);
    expect(played.width).toBe(640);
    expect(played.time).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
