import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SERVER_COMMAND, SERVER_ENV } from "../../scripts/server-build.mjs";
import { freePort, type ServerProcess, spawnServer } from "./server-process.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-compiled-"));
let server: ServerProcess | undefined;

afterAll(() => {
  server?.child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

// Once per run: the PostgreSQL project would build the same file at the same time, for nothing.
describe.skipIf(process.env.TURNOUT_TEST_DB === "postgres")(
  "the compiled server (what npm start runs)",
  () => {
    it("builds to plain JavaScript and serves from it with no TypeScript loader", async () => {
      execFileSync(process.execPath, ["scripts/server-build.mjs", "--force"], {
        cwd: repoRoot,
        stdio: "pipe",
      });
      const bundle = readFileSync(path.join(repoRoot, "server/dist/main.js"), "utf8");
      expect(bundle).not.toMatch(/from "tsx|@turnout\/domain"/);
      // ASCII only, so that V8 holds the source at one byte a character for the life of the process.
      expect(bundle.match(/[\u0080-\uffff]/g)).toBeNull();
      // No test double is compiled in (server-build.mjs refuses to build one in): the source map
      // names every source file of the bundle.
      const map = JSON.parse(readFileSync(path.join(repoRoot, "server/dist/main.js.map"), "utf8")) as {
        sources: string[];
        sourcesContent?: unknown;
      };
      const sources = map.sources;
      // Positions only: Node keeps the map parsed while the server runs.
      expect(map.sourcesContent).toBeUndefined();
      expect(sources.some((s) => s.endsWith("src/shared/guard.ts"))).toBe(true);
      expect(sources.filter((s) => s.includes("/testing/") || /stand-in/.test(s))).toEqual([]);

      server = spawnServer(await freePort(), { DATA_DIR: dataDir }, { compiled: true });
      const started = Date.now();
      let health: { status?: string; database?: string } = {};
      while (Date.now() - started < 60_000) {
        try {
          const res = await fetch(`${server.base}/api/health`);
          if (res.ok) {
            health = (await res.json()) as typeof health;
            break;
          }
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(health, server.output()).toMatchObject({ status: "ok", database: "up" });
      // The kernel's queue of connections waiting to be accepted (a listening socket's Send-Q in `ss`):
      // 4,096 as main.ts asks, not Node's 511, within net.core.somaxconn.
      const somaxconn = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
      const listening = execFileSync("ss", ["-Hltn", `sport = :${new URL(server.base).port}`], {
        encoding: "utf8",
      });
      expect(Number(listening.trim().split(/\s+/)[2]), listening).toBe(Math.min(4096, somaxconn));
      // Migrations, the embedded database's worker and the postcode data resolved from the build.
      const postcodes = await fetch(`${server.base}/api/postcode/lookup/3550`);
      expect(postcodes.status).toBe(200);
      expect(JSON.stringify(await postcodes.json()).toUpperCase()).toContain("BENDIGO");
      // The localities read from the 25 MB source at this first start, kept for the next one.
      const kept = JSON.parse(readFileSync(path.join(dataDir, "localities-cache.json"), "utf8"));
      expect(kept.localities.length).toBeGreaterThan(15_000);
    }, 90_000);

    it("names the TypeScript sources in the stacks it logs (the bundle's map, read when first needed)", async () => {
      // The first test's server, stopped; the locality cache it wrote, damaged: the next start says so.
      const first = server;
      if (first) {
        const exited = new Promise((resolve) => first.child.once("exit", resolve));
        first.child.kill("SIGTERM");
        await exited;
      }
      writeFileSync(path.join(dataDir, "localities-cache.json"), "{}");
      server = spawnServer(await freePort(), { DATA_DIR: dataDir, LOG_LEVEL: "warn" }, { compiled: true });
      const started = Date.now();
      const warning = () =>
        server
          ?.output()
          .split("\n")
          .find((line) => line.includes("the locality cache could not be used"));
      while (!warning() && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 250));
      const logged = JSON.parse(warning() ?? "{}") as { err?: { stack?: string } };
      expect(logged.err?.stack, server.output()).toContain(
        `${path.join(repoRoot, "server/src/shared/localities/localities.ts")}:`,
      );
      expect(logged.err?.stack).not.toContain("dist/main.js");
    }, 90_000);

    it("is started by the systemd unit as npm start starts it: the same command and environment", () => {
      const lines = readFileSync(path.join(repoRoot, "deploy/systemd/turnout@.service"), "utf8").split("\n");
      expect(lines).toContain(`ExecStart=/usr/bin/node ${SERVER_COMMAND.join(" ")}`);
      const environment = lines
        .filter((line) => line.startsWith("Environment="))
        .flatMap((line) => line.slice("Environment=".length).split(" "));
      for (const [name, value] of Object.entries(SERVER_ENV))
        expect(environment).toContain(`${name}=${value}`);
    });
  },
);
