import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
import { agencyIds, apiJson, ingest, mapCapcode, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import type { RunningServer } from "./support/server.js";
import { type SupervisedInstance, startSupervised } from "./support/supervised.js";

// The station turnout board (issue 34) on a 1920x1080 screen: it shows a pairing code, an admin
// pairs it with a display of the unit, then a new job and the members' answers appear by themselves,
// and after the server is restarted (supervised, as systemd does) the board carries on untouched.

const INGEST_KEY = "e2e-ingest-key-for-the-board";
const ADMIN_PHONE = "+61400000981";
const UNIT_CAPCODE = "1350001";
const TILE = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGO4BwAA3QDcOf/mGgAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(!chromiumPath)("the station board in Chromium", () => {
  let instance: SupervisedInstance;
  let server: RunningServer;
  let browser: BrowserSession;
  let tiles: http.Server;
  let dir: string;

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
  });

  afterAll(async () => {
    await browser?.close();
    await instance?.stop();
    await new Promise((resolve) => tiles?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("pairs by its code, shows a new job and the answers live, and comes back after a server restart", async () => {
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-admin");
    const agencies = await agencyIds(server);
    await mapCapcode(server, admin.token, UNIT_CAPCODE, agencies.CFA!);
    const capcodes = await apiJson<{ data: { id: number; capcode: string }[] }>(
      server,
      "GET",
      `/admin/agencies/${agencies.CFA}/capcodes`,
      { token: admin.token },
    );
    const unit = await apiJson<{ data: { id: number } }>(
      server,
      "POST",
      `/admin/agencies/${agencies.CFA}/units`,
      {
        token: admin.token,
        body: { name: "Kangaroo Flat" },
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
    await apiJson(server, "PUT", "/units/mine", { token: member.token, body: { unit_ids: [unit.data.id] } });

    // The screen shows a code; the admin pairs it.
    const { page } = browser;
    await page.goto(`${server.url}/board`);
    const codeText = page.getByTestId("pairing-code");
    await codeText.waitFor({ timeout: 20_000 });
    const code = (await codeText.textContent())!.trim();
    const display = await apiJson<{ data: { id: number } }>(server, "POST", "/admin/displays", {
      token: admin.token,
      body: { unit_id: unit.data.id, name: "Engine bay TV", idle_minutes: 30 },
    });
    await apiJson(server, "POST", `/admin/displays/${display.data.id}/pair`, {
      token: admin.token,
      body: { code },
    });
    await page.getByRole("heading", { name: "Kangaroo Flat" }).waitFor({ timeout: 20_000 });
    await page.getByTestId("idle-clock").waitFor();

    // A new job, then an answer: both appear without a touch.
    const [jobId] = await ingest(server, INGEST_KEY, [
      {
        capcode: UNIT_CAPCODE,
        message: "@@ALERT F261127301 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT /OLYMPIC PDE [KANG]",
      },
    ]);
    await expect
      .poll(() => page.getByTestId("current-address").textContent(), { timeout: 20_000 })
      .toBe("105 HIGH ST, KANGAROO FLAT");
    await apiJson(server, "PUT", `/alerts/${jobId}/response`, {
      token: member.token,
      body: { status: "responding", eta_minutes: 10 },
    });
    const responding = page.getByRole("region", { name: "Responding" });
    await expect.poll(() => responding.textContent(), { timeout: 20_000 }).toContain("Robin F.");
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
    await ingest(server, INGEST_KEY, [
      {
        capcode: UNIT_CAPCODE,
        message: "@@ALERT F261127302 KANG1 RESCC1 MVA CNR HORNE ST / BARKLY ST KANGAROO FLAT [KANG]",
      },
    ]);
    await expect
      .poll(() => page.getByTestId("current-address").textContent(), { timeout: 30_000 })
      .toContain("HORNE ST");
    const previous = page.getByRole("region", { name: "Previous jobs" });
    expect(await previous.textContent()).toContain("105 HIGH ST, KANGAROO FLAT");
    expect(browser.errors).toEqual([]);
  });
});
