import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { SERVER_COMMAND, SERVER_ENV } from "../../scripts/server-build.mjs";
import { createScratchDatabase } from "../../server/test/scratch-database.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

export type RunningServer = {
  url: string;
  dataDir: string;
  /** Every SMS the server "sent" so far (the development outbox), oldest first. */
  outbox: () => Array<{ to: string; body: string; at: string }>;
  logs: () => string;
  stop: () => Promise<void>;
  /** Ends the process with SIGKILL (no shutdown at all) and resolves once it has exited. */
  kill: () => Promise<void>;
};

/**
 * Starts the real server (the compiled `server/dist/main.js`, as `npm start` does; the global setup
 * builds it) on a free port with a temporary
 * DATA_DIR: embedded PGlite, or a scratch PostgreSQL database when DATABASE_URL is set. A
 * DATABASE_URL in `env` is used as it is (several instances on one database; the caller drops it).
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-e2e-"));
  const port = await freePort();
  const scratch =
    process.env.DATABASE_URL && !env.DATABASE_URL
      ? await createScratchDatabase(process.env.DATABASE_URL)
      : null;
  const child = spawn(process.execPath, SERVER_COMMAND, {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...SERVER_ENV,
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
      ...(process.env.REDIS_URL
        ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: `turnout-e2e:${randomBytes(4).toString("hex")}:` }
        : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stdout?.on("data", (d) => (logs += d));
  child.stderr?.on("data", (d) => (logs += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, () => logs);
  } catch (err) {
    child.kill("SIGKILL");
    await scratch?.drop();
    throw err;
  }
  return {
    url,
    dataDir,
    outbox: () => readOutbox(path.join(dataDir, "sms-outbox.jsonl")),
    logs: () => logs,
    stop: async () => {
      await stopChild(child);
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    kill: () => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      });
    },
  };
}

function readOutbox(file: string) {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { to: string; body: string; at: string });
  } catch {
    return [];
  }
}

async function waitForHealth(url: string, child: ChildProcess, logs: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${logs()}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become healthy within 60 s:\n${logs()}`);
}

/** Stops a server process with SIGTERM (SIGKILL after 10 s) and resolves when it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** A TCP port nobody is listening on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
