import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { SERVER_COMMAND, SERVER_ENV } from "../../scripts/server-build.mjs";

const serverDir = path.resolve(import.meta.dirname, "..");

/** A free TCP port on 127.0.0.1 (taken and released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => resolve(typeof a === "object" && a ? a.port : 0));
    });
  });
}

/** The real server process, as `npm start` runs it; its output is collected. */
export type ServerProcess = { child: ChildProcess; output: () => string; base: string };

/**
 * Spawns `src/main.ts` under tsx (or, with `compiled`, the build as `npm start` runs it: `dist/main.js`,
 * with its command and environment) on `port` with only PATH, PORT, HOST and `env` set (no developer
 * settings leak in). It does not wait for
 * the server to answer.
 */
export function spawnServer(
  port: number,
  env: Record<string, string>,
  { compiled = false }: { compiled?: boolean } = {},
): ServerProcess {
  const args = compiled ? SERVER_COMMAND : ["--import", "tsx", "src/main.ts"];
  const child = spawn(process.execPath, args, {
    cwd: compiled ? path.dirname(serverDir) : serverDir,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      ...(compiled ? SERVER_ENV : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return { child, output: () => output, base: `http://127.0.0.1:${port}` };
}
