import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
import { agencyIds, apiJson, ingest, mapCapcode, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import type { RunningServer } from "./support/server.js";
import { type SupervisedInstance, startSupervised } from "./support/supervised.js";

// The station turnout board (issue 34) on a 1920x1080 screen: it shows a pairing code, an admin
// pairs it with a display of the unit, then a new job and the members' answers arrive over the live
// channel, and after the server is restarted (supervised, as systemd does) the board carries on
// untouched. A second screen shows the station on the map, sounds the alarm for a new emergency page,
// keeps the screen awake, and goes back to the idle clock after the display's idle time.

const INGEST_KEY = "e2e-ingest-key-for-the-board";
const ADMIN_PHONE = "+61400000981";
const UNIT_CAPCODE = "1350001";
const TILE = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGO4BwAA3QDcOf/mGgAAAABJRU5ErkJggg==",
  "base64",
);

/** What the board asked of the browser: sounds started, and wake-lock requests (their sentinels kept). */
type BoardLog = { sounds: Array<{ wave: string; state: string }>; wakeLocks: number };

// Runs before the app's scripts: wraps the Web Audio oscillator's start and the wake lock so the test
// sees what the board asked of the browser (the calls still go through), and keeps the wake locks
// granted so the test can release them as the browser does when the page is hidden.
const RECORD_BOARD = `(() => {
  const log = { sounds: [], wakeLocks: 0 };
  const sentinels = [];
  window.__boardLog = log;
  window.__releaseWakeLocks = () => Promise.all(sentinels.splice(0).map((s) => s.release()));
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    log.sounds.push({ wave: this.type, state: this.context.state });
    return start.apply(this, args);
  };
  if (navigator.wakeLock) {
    const request = WakeLock.prototype.request;
    WakeLock.prototype.request = function (type) {
      log.wakeLocks += 1;
      const granted = request.call(this, type);
      granted.then((s) => sentinels.push(s), () => undefined);
      return granted;
    };
  }
})();`;

const boardLog = (page: Page) =>
  page.evaluate(() => (window as unknown as { __boardLog: BoardLog }).__boardLog);

describe.skipIf(!chromiumPath)("the station board in Chromium", () => {
  let instance: SupervisedInstance;
  let server: RunningServer;
  let browser: BrowserSession;
  let tiles: http.Server;
  let dir: string;
  let adminToken: string;
  let unitId: number;
  let memberToken: string;

  /** Shows the board on `page`, and pairs it with a new display of the unit; resolves once it shows the unit. */
  async function pairBoard(page: Page, name: string, idleMinutes: number) {
    await page.goto(`${server.url}/board`);
    const codeText = page.getByTestId("pairing-code");
    await codeText.waitFor({ timeout: 20_000 });
    const code = (await codeText.textContent())!.trim();
    const display = await apiJson<{ data: { id: number } }>(server, "POST", "/admin/displays", {
      token: adminToken,
      body: { unit_id: unitId, name, idle_minutes: idleMinutes },
    });
    await apiJson(server, "POST", `/admin/displays/${display.data.id}/pair`, {
      token: adminToken,
      body: { code },
    });
    await page.getByRole("heading", { name: "Kangaroo Flat" }).waitFor({ timeout: 20_000 });
  }

  beforeAll(async () => {
    tiles = http.createServer((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(TILE));
    await new Promise<void>((resolve) => tiles.listen(0, "127.0.0.1", resolve));
    dir = mkdtempSync(path.join(tmpdir(), "turnout-e2e-board-"));
    instance = await startSupervised(dir, {
      DATA_DIR: path.join(dir, "data"),
      LOG_LEVEL: "warn",
      INGEST_API_KEY: INGEST_KEY,
      ADMIN_PHONES: ADMIN_PHONE,
      MAP_TILE_URL: `http://127.0.0.1:${(tiles.address() as AddressInfo).port}/{z}/{x}/{y}.png`,
    });
    // What the account helpers read: the address and the development SMS outbox.
    server = {
      url: instance.url,
      dataDir: path.join(dir, "data"),
      outbox: () => {
        try {
          return readFileSync(path.join(dir, "data", "sms-outbox.jsonl"), "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { to: string; body: string; at: string });
        } catch {
          return [];
        }
      },
      logs: instance.logs,
      stop: instance.stop,
      kill: async () => {},
    };
    browser = await openBrowser({ viewport: { width: 1920, height: 1080 } });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin");
    const agencies = await agencyIds(server);
    await mapCapcode(server, admin.token, UNIT_CAPCODE, agencies.CFA!);
    const capcodes = await apiJson<{ data: { id: number; capcode: string }[] }>(
      server,
      "GET",
      `/admin/agencies/${agencies.CFA}/capcodes`,
      { token: admin.token },
    );
    adminToken = admin.token;
    const unit = await apiJson<{ data: { id: number } }>(
      server,
      "POST",
      `/admin/agencies/${agencies.CFA}/units`,
      {
        token: admin.token,
        // Placed by its postcode and suburb: the station's marker on the board's map.
        body: { name: "Kangaroo Flat", postcode: "3555", suburb: "Kangaroo Flat", state: "VIC" },
      },
    );
    await apiJson(server, "PUT", `/admin/units/${unit.data.id}/capcodes`, {
      token: admin.token,
      body: { capcode_ids: [capcodes.data.find((c) => c.capcode === UNIT_CAPCODE)!.id] },
    });
    const account = await registerActiveAccount(server, "0412 555 981", {
      firstName: "Robin",
      lastName: "Firefighter",
    });
    const member = await signInByApi(server, account.phone);
    memberToken = member.token;
    await apiJson(server, "PUT", "/units/mine", { token: member.token, body: { unit_ids: [unit.data.id] } });
    unitId = unit.data.id;
  });

  afterAll(async () => {
    await browser?.close();
    await instance?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("pairs by its code, shows a new job and the answers live, and comes back after a server restart", async () => {
    // The screen shows a code; the admin pairs it.
    const { page } = browser;
    await pairBoard(page, "Engine bay TV", 30);
    await page.getByTestId("idle-clock").waitFor();
    await page.locator('main[data-live="connected"]').waitFor({ timeout: 20_000 });

    // A new job, then an answer: both appear without a touch, over the live channel (the board's
    // fallback poll is 30 s apart).
    const [jobId] = await ingest(server, INGEST_KEY, [
      {
        capcode: UNIT_CAPCODE,
        message: "@@ALERT F261127301 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT /OLYMPIC PDE [KANG]",
      },
    ]);
    await expect
      .poll(() => page.getByTestId("current-address").textContent(), { timeout: 10_000 })
      .toBe("105 HIGH ST, KANGAROO FLAT");
    await apiJson(server, "PUT", `/alerts/${jobId}/response`, {
      token: memberToken,
      body: { status: "responding", eta_minutes: 10 },
    });
    const responding = page.getByRole("region", { name: "Responding" });
    await expect.poll(() => responding.textContent(), { timeout: 10_000 }).toContain("Robin F.");
    expect(await responding.textContent()).toMatch(/Responding: 1/);
    expect(await responding.textContent()).toMatch(/9:\d\d|10:00/);

    // The server restarts; the board notices, waits, and carries on by itself with the next job.
    execSync(instance.restartCommand, { shell: "/bin/bash" });
    await expect
      .poll(
        async () =>
          await fetch(`${server.url}/api/ready`).then(
            (r) => r.ok,
            () => false,
          ),
        {
          timeout: 60_000,
          interval: 500,
        },
      )
      .toBe(true);
    // The live channel comes back by itself, and brings the next job.
    await page.locator('main[data-live="connected"]').waitFor({ timeout: 30_000 });
    await ingest(server, INGEST_KEY, [
      {
        capcode: UNIT_CAPCODE,
        message: "@@ALERT F261127302 KANG1 RESCC1 MVA CNR HORNE ST / BARKLY ST KANGAROO FLAT [KANG]",
      },
    ]);
    await expect
      .poll(() => page.getByTestId("current-address").textContent(), { timeout: 10_000 })
      .toContain("HORNE ST");
    const previous = page.getByRole("region", { name: "Previous jobs" });
    expect(await previous.textContent()).toContain("105 HIGH ST, KANGAROO FLAT");
    expect(browser.errors).toEqual([]);
  });

  it("shows the station on the map, sounds the alarm for a new emergency page, keeps the screen awake, and goes idle after its idle time", async () => {
    // A second screen, its clock under the test's control (to pass the display's idle time at once).
    const second = await openBrowser({ viewport: { width: 1920, height: 1080 } });
    try {
      await second.context.addInitScript({ content: RECORD_BOARD });
      await second.context.clock.install();
      const { page } = second;
      await pairBoard(page, "Watch room TV", 1);
      await page.locator('main[data-live="connected"]').waitFor({ timeout: 20_000 });

      // Kept awake from the start; asked again when the page is shown after the browser released it.
      await expect.poll(async () => (await boardLog(page)).wakeLocks).toBeGreaterThan(0);
      const asked = (await boardLog(page)).wakeLocks;
      await page.evaluate(async () => {
        await (window as unknown as { __releaseWakeLocks: () => Promise<unknown> }).__releaseWakeLocks();
        document.dispatchEvent(new Event("visibilitychange"));
      });
      await expect.poll(async () => (await boardLog(page)).wakeLocks).toBe(asked + 1);

      // A tap on the screen lets the board sound the alarm (the browser's autoplay rule; Chromium under
      // Playwright counts the page as activated already, so the board does not ask for it here).
      await page.getByRole("heading", { name: "Kangaroo Flat" }).click();
      const before = await boardLog(page);
      await ingest(server, INGEST_KEY, [
        {
          capcode: UNIT_CAPCODE,
          message: "@@ALERT F261127303 KANG1 G&SC1 GRASS FIRE 44 LOCKWOOD RD KANGAROO FLAT [KANG]",
        },
      ]);
      const current = page.getByRole("region", { name: "Current job" });
      await expect
        .poll(() => page.getByTestId("current-address").textContent(), { timeout: 10_000 })
        .toBe("44 LOCKWOOD RD, KANGAROO FLAT");
      await expect.poll(async () => (await boardLog(page)).sounds.length).toBe(before.sounds.length + 1);
      expect((await boardLog(page)).sounds.at(-1)).toEqual({ wave: "square", state: "running" });

      // The station's marker beside the job's on the board's map.
      const station = current.locator(".turnout-station");
      await station.waitFor();
      expect(await station.getAttribute("title")).toBe("Kangaroo Flat station");
      expect(await station.isVisible()).toBe(true);
      expect(await current.locator(".turnout-job").count()).toBe(1);

      // A minute later (the display's idle time) the board shows the clock, the job among the last ones.
      await page.clock.fastForward("01:05");
      await page.getByTestId("idle-clock").waitFor({ timeout: 10_000 });
      expect(await current.count()).toBe(0);
      expect(await page.getByRole("region", { name: "Previous jobs" }).textContent()).toContain(
        "44 LOCKWOOD RD, KANGAROO FLAT",
      );
      expect(second.errors).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
