import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SERVER_COMMAND, SERVER_ENV } from "../../scripts/server-build.mjs";
import { freePort, stopChild } from "./server.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");

/**
 * One server instance under a supervisor that starts it again whenever it exits, as systemd's
 * `Restart=always` does (deploy/systemd/turnout@.service): the compiled server on its own port.
 */
export type SupervisedInstance = {
  port: number;
  url: string;
  /** `deploy/rolling-restart.sh`'s TURNOUT_RESTART for this instance: SIGTERM, then wait for the exit. */
  restartCommand: string;
  logs: () => string;
  stop: () => Promise<void>;
};

/** Starts a supervised instance with `env` (DATA_DIR, DATABASE_URL, ...) and waits until it is ready. */
export async function startSupervised(dir: string, env: Record<string, string>): Promise<SupervisedInstance> {
  const port = await freePort();
  const pidFile = path.join(dir, `${port}.pid`);
  const stopFile = path.join(dir, `${port}.stop`);
  // The supervisor: run, record the pid, wait; start again 0.3 s after every exit until told to stop.
  const script = `while [ ! -e "${stopFile}" ]; do "${process.execPath}" ${SERVER_COMMAND.join(" ")} & echo $! > "${pidFile}"; wait $!; sleep 0.3; done`;
  const child: ChildProcess = spawn("bash", ["-c", script], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      ...SERVER_ENV,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stdout?.on("data", (d) => (logs += d));
  child.stderr?.on("data", (d) => (logs += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${url}/api/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`instance not ready:\n${logs}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    url,
    restartCommand: `p=$(cat "${pidFile}"); kill -TERM "$p"; while kill -0 "$p" 2>/dev/null; do sleep 0.05; done`,
    logs: () => logs,
    stop: async () => {
      writeFileSync(stopFile, "");
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, "utf8"));
        try {
          process.kill(pid, "SIGTERM");
        } catch {}
      }
      await stopChild(child);
    },
  };
}
