import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally } from "./build-app.js";
import { freePort, type ServerProcess, spawnServer } from "./server-process.js";

describe("graceful shutdown", () => {
  it("finishes a request in flight, then stops accepting connections", async () => {
    const app = await buildTestApp();
    app.get("/slow", async () => {
      await new Promise((r) => setTimeout(r, 400));
      return { done: true };
    });
    const url = await listenLocally(app);

    const inFlight = fetch(`${url}/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.cleanup();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    await closing;
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });

  it("ends the connection of a request that never finishes, so the close still completes and the database closes", async () => {
    const app = await buildTestApp();
    let handlerStarted: () => void = () => {};
    const started = new Promise<void>((r) => {
      handlerStarted = r;
    });
    app.get("/never", async () => {
      handlerStarted();
      return new Promise(() => {}); // a handler waiting on something that never settles
    });
    const url = await listenLocally(app);

    const stuck = fetch(`${url}/never`).then(
      (r) => r.status,
      (e: Error) => e.name,
    );
    await started;
    expect([...app.lifecycle.inFlight.values()].map((r) => r.url)).toEqual(["/never"]);
    await app.cleanup(); // hung for good before IN_FLIGHT_GRACE_MS
    expect(await stuck).toBe("TypeError"); // the connection was ended: fetch fails
    expect(app.lifecycle.closingStep).toBeNull(); // every close step ran, the database's last
  }, 90_000);

  describe("the server process", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-shutdown-"));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    async function start(port: number): Promise<ServerProcess> {
      const server = spawnServer(port, { DATA_DIR: dataDir, LOG_LEVEL: "info" });
      const { child, output } = server;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`exited early:\n${output()}`);
        const ok = await fetch(`http://127.0.0.1:${port}/api/health`)
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) return server;
        await new Promise((r) => setTimeout(r, 200));
      }
      child.kill("SIGKILL");
      throw new Error(`not healthy in time:\n${output()}`);
    }

    const exitOf = (child: ChildProcess) =>
      new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

    it("stops cleanly on SIGTERM and SIGINT, and its embedded database opens again afterwards", async () => {
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        const port = await freePort();
        const { child, output } = await start(port);
        const exited = exitOf(child);
        child.kill(signal);
        expect(await exited).toBe(0);
        expect(output()).toContain("stopped cleanly");
        expect(output()).toContain(`"signal":"${signal}"`);
      }
    }, 120_000);
  });
});
