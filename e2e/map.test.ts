import http from "node:http";
import type { AddressInfo } from "node:net";
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

// The map of active jobs (issue 34) on a phone: the member's jobs as markers (none of another
// agency's), a live job appearing, a tap opening the job popup, and the list with a message when the
// tiles cannot load. Tiles come from a tile server on this machine (MAP_TILE_URL), which the CSP
// must then allow and nothing else.

const INGEST_KEY = "e2e-ingest-key-for-the-map-1";
const ADMIN_PHONE = "+61400000971";
const CFA_CAPCODE = "1340001";
const SES_CAPCODE = "1340002";
// A 1x1 grey PNG: every tile.
const TILE = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGO4BwAA3QDcOf/mGgAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(!chromiumPath)("the map of jobs in Chromium", () => {
  let server: RunningServer;
  let browser: BrowserSession;
  let tiles: http.Server;
  let tilesServed = 0;
  let tilesUp = true;
  let member: SignedInSession;

  beforeAll(async () => {
    tiles = http.createServer((_req, res) => {
      if (!tilesUp) {
        res.writeHead(503).end();
        return;
      }
      tilesServed += 1;
      res.writeHead(200, { "content-type": "image/png", "cache-control": "no-store" }).end(TILE);
    });
    await new Promise<void>((resolve) => tiles.listen(0, "127.0.0.1", resolve));
    const tilePort = (tiles.address() as AddressInfo).port;
    server = await startServer({
      INGEST_API_KEY: INGEST_KEY,
      ADMIN_PHONES: ADMIN_PHONE,
      MAP_TILE_URL: `http://127.0.0.1:${tilePort}/{z}/{x}/{y}.png`,
      MAP_TILE_ATTRIBUTION: "© OpenStreetMap contributors",
    });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin");
    const agencies = await agencyIds(server);
    await mapCapcode(server, admin.token, CFA_CAPCODE, agencies.CFA!);
    await mapCapcode(server, admin.token, SES_CAPCODE, agencies.SES!);
    const account = await registerActiveAccount(server, "0412 555 971", {
      firstName: "Sam",
      lastName: "Map",
    });
    member = await signInByApi(server, account.phone);
    await ingest(server, INGEST_KEY, [
      {
        capcode: CFA_CAPCODE,
        message: "@@ALERT F261127101 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT [KANG]",
      },
      {
        capcode: CFA_CAPCODE,
        message: "@@ALERT F261127102 BALL1 ALARC1 AFA 14 LYDIARD ST S BALLARAT CENTRAL [BALL]",
      },
      { capcode: SES_CAPCODE, message: "@@ALERT S261127103 SES VICSES TREE DOWN 9 BAY ST GEELONG [SESGEEL]" },
    ]);
    browser = await openBrowser({ viewport: { width: 390, height: 844 } });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
  });

  it("shows the member's jobs as markers and none of another agency's, a live job too, and opens a job on a tap", async () => {
    const { page } = browser;
    await openSignedIn(page, server, member, "/");
    await page.getByRole("button", { name: "Show the map of jobs" }).click();
    await page.waitForURL(/\/map$/);
    const map = page.getByRole("region", { name: "Map of jobs" });
    await map.waitFor();
    await expect.poll(() => page.locator("path.turnout-job").count(), { timeout: 20_000 }).toBe(2);
    const list = page.getByRole("list", { name: "Jobs on the map" });
    await expect
      .poll(() => list.getByRole("button").allTextContents())
      .toEqual([expect.stringMatching(/Non-Emergency|Emergency/), expect.stringMatching(/Emergency/)]);
    expect(await list.textContent()).toContain("105 HIGH ST, KANGAROO FLAT");
    expect(await list.textContent()).toContain("14 LYDIARD ST S, BALLARAT CENTRAL");
    expect(await list.textContent()).not.toContain("BAY ST");
    expect(await list.textContent()).toContain("Placed at the suburb (approximate)");
    expect(tilesServed).toBeGreaterThan(0);

    // A live page: its marker appears, the newest, without reloading.
    const [liveId] = await ingest(server, INGEST_KEY, [
      {
        capcode: CFA_CAPCODE,
        message: "@@ALERT F261127104 SUNB1 RESCC1 MVA CNR HORNE ST / BARKLY ST SUNBURY [SUNB]",
      },
    ]);
    await page.locator(`path.turnout-job-${liveId}`).waitFor({ timeout: 20_000 });
    expect(await page.locator("path.turnout-job").count()).toBe(3);
    expect(await page.locator(`path.turnout-job-${liveId}`).getAttribute("class")).toContain(
      "turnout-newest",
    );
    await expect
      .poll(() => list.getByRole("button").first().textContent())
      .toContain("CNR HORNE ST / BARKLY ST, SUNBURY");

    // A tap on the marker opens the job popup.
    await page.locator(`path.turnout-job-${liveId}`).click({ force: true });
    const dialog = page.getByRole("dialog", { name: `Job #${liveId}` });
    await dialog.waitFor();
    await expect.poll(() => dialog.textContent(), { timeout: 20_000 }).toContain("CNR HORNE ST / BARKLY ST");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(browser.errors).toEqual([]);
  });

  it("lists the jobs with a message when the tiles cannot load", async () => {
    const { page } = browser;
    tilesUp = false;
    await page.reload();
    await page
      .getByText("The map could not load (offline, or the map tiles are blocked). The jobs are listed below.")
      .waitFor({
        timeout: 20_000,
      });
    const list = page.getByRole("list", { name: "Jobs on the map" });
    await expect.poll(() => list.getByRole("button").count(), { timeout: 20_000 }).toBe(3);
    await page.getByRole("button", { name: "Show the list of jobs" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await page.getByRole("article").first().waitFor();
  });
});
