import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, stopChild } from "../../e2e/support/server.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

export type ServedApp = { url: string; stop: () => Promise<void> };

/**
 * Runs the real server as `npm start` does (server/src/main.ts serving web/dist) on a free port
 * with a throwaway DATA_DIR (embedded database), and waits until /api/health answers.
 */
export async function serveProductionBuild(): Promise<ServedApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-bench-"));
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/src/main.ts"], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stdout?.on("data", (d) => (logs += d));
  child.stderr?.on("data", (d) => (logs += d));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`the server did not start:\n${logs}`);
}
