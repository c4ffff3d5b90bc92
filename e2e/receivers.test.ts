import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiJson, openSignedIn, type SignedInSession, signInByApi } from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const ADMIN_PHONE = "+61412556933";
const repoRoot = path.resolve(import.meta.dirname, "..");

type Receiver = {
  id: number;
  name: string;
  state: string;
  current_state: string;
  pages_per_hour: number[];
  spool_depth: number | null;
};

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms: number,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Receivers that notice their own silence (issue 33), against the real server with the checker every
 * second: the Receivers tab shows a receiver going down and coming back live, and the bundled reader
 * killed with SIGKILL is reported down to the admin by SMS, then recovered, with nothing lost.
 */
describe("receivers, heartbeats and silence alarms against the real server", () => {
  let server: RunningServer;
  let admin: SignedInSession;
  const browsers: BrowserSession[] = [];
  const readers: ChildProcessWithoutNullStreams[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    server = await startServer({ ADMIN_PHONES: ADMIN_PHONE, MONITOR_CHECK_SECONDS: "1" });
    admin = await signInByApi(server, ADMIN_PHONE, "e2e-receivers");
  });
  afterAll(async () => {
    for (const r of readers) if (r.exitCode === null && r.signalCode === null) r.kill("SIGKILL");
    for (const b of browsers) await b.close();
    await server?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const register = (name: string) =>
    apiJson<{ data: { id: number; key: { key: string } } }>(server, "POST", "/admin/receivers", {
      token: admin.token,
      // Late after 10 s without a heartbeat, down after 15 s.
      body: { name, heartbeat_interval_seconds: 5, down_after_seconds: 15 },
    }).then((r) => r.data);
  const receiverNamed = async (name: string) =>
    (
      await apiJson<{ data: Receiver[] }>(server, "GET", "/admin/receivers", { token: admin.token })
    ).data.find((r) => r.name === name)!;
  const heartbeat = (key: string) =>
    apiJson(server, "POST", "/ingest/heartbeat", {
      headers: { authorization: `Bearer ${key}` },
      body: { spool_depth: 0, dead_letters: 0, decoder: "ok", uptime_seconds: 1, version: "e2e" },
    });
  const noticesAbout = (name: string) =>
    server.outbox().filter((m) => m.to === ADMIN_PHONE && m.body.includes(`receiver ${name}`));

  it.skipIf(!chromiumPath)(
    "shows a receiver going down and coming back, live, on the Receivers tab",
    async () => {
      const rx = await register("Kyneton hill");
      await heartbeat(rx.key.key);
      const browser = await openBrowser();
      browsers.push(browser);
      const { page } = browser;
      await openSignedIn(page, server, admin, "/admin/receivers");
      const row = page.getByRole("row").filter({ hasText: "Kyneton hill" });
      await row.getByLabel("State: OK").waitFor({ timeout: 20_000 });
      // No more heartbeats: late, then down, with the page left open (the admin channel says when a
      // state changes; the list is polled only every 30 s).
      await row.getByLabel("State: Down").waitFor({ timeout: 40_000 });
      await heartbeat(rx.key.key);
      await row.getByLabel("State: OK").waitFor({ timeout: 20_000 });
      // The checker told the admin once per change: late, down, recovered.
      await until("the recovery notice", () => noticesAbout("Kyneton hill").length >= 3, 15_000);
      expect(noticesAbout("Kyneton hill").map((m) => m.body.match(/is late|is DOWN|recovered/)?.[0])).toEqual(
        ["is late", "is DOWN", "recovered"],
      );
      expect(browser.errors).toEqual([]);
    },
    120_000,
  );

  it("reports the bundled reader down after kill -9 and recovered after its restart, losing nothing in its spool", async () => {
    const rx = await register("Bendigo roof");
    const spool = mkdtempSync(path.join(tmpdir(), "e2e-reader-spool-"));
    dirs.push(spool);
    const startReader = () => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "server/src/reader/main.ts",
          "--url",
          server.url,
          "--source",
          "bendigo-roof",
          "--spool",
          spool,
          "--heartbeat-seconds",
          "1",
        ],
        {
          cwd: repoRoot,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TURNOUT_INGEST_KEY: rx.key.key },
        },
      );
      child.stdout.resume();
      child.stderr.resume();
      readers.push(child);
      return child;
    };
    const line = (n: number) =>
      `POCSAG1200: Address: 1234${String(500 + n).padStart(3, "0")}  Function: 3  Alpha:   @@ALERT F2611${String(n).padStart(5, "0")} STRUC1 SHED FIRE ${n} MAIN ST BENDIGO\n`;

    const first = startReader();
    for (let n = 1; n <= 10; n++) first.stdin.write(line(n));
    await until(
      "the reader's heartbeat",
      async () => (await receiverNamed("Bendigo roof")).current_state === "ok",
      20_000,
    );
    await until(
      "the first pages",
      async () => sum((await receiverNamed("Bendigo roof")).pages_per_hour) >= 10,
      20_000,
    );
    // More pages, then SIGKILL at once: some may still be in the spool, unsent.
    for (let n = 11; n <= 40; n++) first.stdin.write(line(n));
    const killedAt = Date.now();
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    // The pages the spool held at the kill. One may be stored already (sent, and the kill came before
    // its file was removed): the second reader sends it again under the same id and the server keeps
    // it once, so the pages to find are the first ten and these, each counted once.
    const spooledPages = readdirSync(spool)
      .filter((f) => f.endsWith(".json"))
      .map((f) =>
        Number(/F2611(\d{5})/.exec(JSON.parse(readFileSync(path.join(spool, f), "utf8")).message)?.[1]),
      );
    const pagesToFind = new Set([...Array.from({ length: 10 }, (_, i) => i + 1), ...spooledPages]);

    // Down after 15 s without a heartbeat, checked every second: the admin's SMS within 15 s + 5 s.
    await until(
      "the DOWN notice",
      () => noticesAbout("Bendigo roof").some((m) => m.body.includes("is DOWN")),
      30_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(25_000);

    const second = startReader();
    await until(
      "the recovery notice",
      () => noticesAbout("Bendigo roof").some((m) => m.body.includes("recovered")),
      30_000,
    );
    // Everything the first reader spooled arrives: the spool is empty, and every page it read before
    // the kill that reached the disk is stored (pages heard by this receiver).
    await until(
      "the spool to drain",
      () => readdirSync(spool).filter((f) => f.endsWith(".json")).length === 0,
      20_000,
    );
    const heard = sum((await receiverNamed("Bendigo roof")).pages_per_hour);
    expect(heard).toBeGreaterThanOrEqual(pagesToFind.size);
    second.stdin.end();
    await new Promise((r) => second.once("exit", r));
  }, 150_000);
});

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
