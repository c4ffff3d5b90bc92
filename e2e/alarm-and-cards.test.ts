import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
import {
  agencyIds,
  ingest,
  mapCapcode,
  openSignedIn,
  type SignedInSession,
  signInByApi,
} from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const INGEST_KEY = "e2e-ingest-key-for-the-alarm";
const ADMIN_PHONE = "+61400000971";
const CFA_CAPCODE = "1236001";
const PHONE = { width: 390, height: 844 };

/** Realistic turnout pages (the grammar of DESIGN's example): the length a member's feed is made of. */
const TURNOUT_PAGES = [
  "@@ALERT F261127101 KFLT1 STRUC1 HOUSE FIRE 14 HIGH ST KANGAROO FLAT /OLYMPIC PDE //HOWARD ST M 608 C4 (512345) CKFLT CBEND [KFLT]",
  "@@ALERT F261127102 KFLT1 G&SC3 GRASS FIRE CALDER HWY KANGAROO FLAT /LOCKWOOD RD //ANDREW ST M 611 B7 (513377) CKFLT CMAIO [KFLT]",
  "@@ALERT F261127103 KFLT1 RESCC1 MVA PERSON TRAPPED CALDER ALT HWY GOLDEN SQUARE /CHUM ST M 609 E1 (514211) CKFLT CBEND [KFLT]",
  "@@ALERT F261127104 KFLT1 ALARC1 AFA BENDIGO HOSPITAL 100 BARNARD ST BENDIGO /MUNDY ST //BAYNE ST M 608 J2 (511903) CKFLT [KFLT]",
  "@@ALERT F261127105 KFLT1 NOSTC1 SMOKE IN AREA 3 EAGLEHAWK RD IRONBARK /NOLAN ST M 607 K5 (515660) CKFLT CEAGL [KFLT]",
  "@@ALERT F261127106 KFLT1 INCIC1 GAS LEAK 77 RAILWAY PL KANGAROO FLAT /HIGH ST M 612 A1 (512099) CKFLT [KFLT]",
];

/** What the page played, vibrated and kept awake, recorded from inside the browser's own APIs. */
type AlarmLog = { sounds: Array<{ wave: string; state: string }>; vibrations: unknown[]; wakeLocks: number };

// Runs before the app's scripts: wraps the Web Audio oscillator's start, navigator.vibrate and the
// wake lock so the test sees what the app asked of the browser (the calls still go through).
const RECORD_ALARM = `(() => {
  const log = { sounds: [], vibrations: [], wakeLocks: 0 };
  window.__alarmLog = log;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    log.sounds.push({ wave: this.type, state: this.context.state });
    return start.apply(this, args);
  };
  const vibrate = Navigator.prototype.vibrate;
  Navigator.prototype.vibrate = function (pattern) {
    log.vibrations.push(pattern);
    return vibrate ? vibrate.call(this, pattern) : true;
  };
  if (navigator.wakeLock) {
    const request = WakeLock.prototype.request;
    WakeLock.prototype.request = function (type) {
      log.wakeLocks += 1;
      return request.call(this, type);
    };
  }
})();`;

const alarmLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { __alarmLog: AlarmLog }).__alarmLog);

/** The card showing `text`. */
const card = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });

describe.skipIf(!chromiumPath)("the alarm and the cards on a phone, in Chromium", () => {
  let server: RunningServer;
  let session: SignedInSession;
  let browser: BrowserSession;

  beforeAll(async () => {
    server = await startServer({ INGEST_API_KEY: INGEST_KEY, ADMIN_PHONES: ADMIN_PHONE });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-alarm-admin");
    await mapCapcode(server, admin.token, CFA_CAPCODE, (await agencyIds(server)).CFA!, "Bendigo");
    const member = await registerActiveAccount(server, "0412 555 971", {
      firstName: "Jess",
      lastName: "Parker",
    });
    session = await signInByApi(server, member.phone, "e2e-alarm-member");
    await ingest(
      server,
      INGEST_KEY,
      TURNOUT_PAGES.map((message, i) => ({
        capcode: CFA_CAPCODE,
        message,
        timestamp: new Date(Date.now() - (TURNOUT_PAGES.length - i) * 10 * 60_000).toISOString(),
      })),
    );
    browser = await openBrowser({ viewport: PHONE });
    await browser.context.addInitScript({ content: RECORD_ALARM });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("fits at least four ordinary cards on a 390x844 screen, answer rows collapsed into their headers", async () => {
    const { page } = browser;
    await openSignedIn(page, server, session);
    await card(page, "GAS LEAK").waitFor();
    await page.locator('[data-connection="connected"]').waitFor();
    // The first tap of the page (it also lets the alarm sound).
    await page.getByText("Turnout", { exact: true }).click();
    await card(page, "HOUSE FIRE")
      .getByRole("button", { name: /^Who is responding/ })
      .waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    const boxes = await page.getByRole("article").evaluateAll((articles) =>
      articles.map((article) => {
        const box = article.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom };
      }),
    );
    const whole = boxes.filter((box) => box.top >= 0 && box.bottom <= PHONE.height);
    expect(whole.length).toBeGreaterThanOrEqual(4);
    // Even with the install banner above them (a member's first visits).
    expect(await page.getByRole("button", { name: "Install", exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Responding", exact: true }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it("opens a job full screen on a phone with its type chip in view", async () => {
    const { page } = browser;
    await card(page, "GAS LEAK")
      .getByRole("button", { name: /^Open details of job / })
      .click();
    const dialog = page.getByRole("dialog", { name: /^Job #\d+/ });
    await dialog.getByText("GAS LEAK").waitFor();
    const box = await dialog.boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
    const chip = dialog.getByText("EMERGENCY", { exact: true });
    expect(await chip.isVisible()).toBe(true);
    await dialog.evaluate((element) => {
      const content = element.querySelector(".MuiDialogContent-root");
      content?.scrollTo(0, content.scrollHeight);
    });
    const chipBox = await chip.boundingBox();
    expect(chipBox!.y).toBeGreaterThanOrEqual(0);
    expect(chipBox!.y + chipBox!.height).toBeLessThanOrEqual(PHONE.height);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });

  it("rings an emergency page of the view (sound started, vibration, wake lock) and not a page the view hides", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Search messages" }).click();
    await page.getByRole("textbox", { name: "Keywords" }).fill("ZEBRA");
    await page.getByRole("textbox", { name: "Keywords" }).press("Enter");
    await page.getByRole("button", { name: "Remove filter Search: ZEBRA" }).waitFor();
    const before = await alarmLog(page);

    // Hidden by the search: reaches the page, but not the feed, so no alarm.
    await ingest(server, INGEST_KEY, [
      { capcode: CFA_CAPCODE, message: "@@ALERT F261127201 KFLT1 STRUC1 GIRAFFE HOUSE FIRE" },
    ]);
    await ingest(server, INGEST_KEY, [
      { capcode: CFA_CAPCODE, message: "@@ALERT F261127202 KFLT1 STRUC1 ZEBRA SHED FIRE" },
    ]);
    await card(page, "ZEBRA SHED FIRE").waitFor({ timeout: 5_000 });
    // The alarm starts in the same task that shows the card (the audio is unlocked); the hidden page came
    // first, so had it rung, that sound would be here too.
    const after = await alarmLog(page);
    expect(after.sounds.length).toBe(before.sounds.length + 1);
    expect(after.sounds.at(-1)).toEqual({ wave: "square", state: "running" });
    expect(after.vibrations.slice(before.vibrations.length)).toEqual([[500, 150, 500, 150, 500, 150, 900]]);
    expect(after.wakeLocks).toBeGreaterThan(before.wakeLocks);
    await page.getByRole("button", { name: "Silence" }).click();
    await page.getByText("Emergency page").waitFor({ state: "detached" });
    expect(await card(page, "GIRAFFE").count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
