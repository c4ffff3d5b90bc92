import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { freePort } from "./server-process.js";

/** Debian's redis-server (`.ci/run` installs it), or null when this machine has none. */
export const redisServerPath: string | null =
  spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).stdout.trim() || null;

/**
 * A private redis-server on its own port, for outage tests: stopped and started again on the same
 * port at will. Never the shared Redis of REDIS_URL, which other tests use.
 */
export type PrivateRedis = {
  url: string;
  port: number;
  /** Starts it (again) and resolves once it accepts commands. */
  start: () => Promise<void>;
  /** Ends it at once (SIGKILL: an outage, not a shutdown) and resolves once it has exited. */
  stop: () => Promise<void>;
};

export async function privateRedis(): Promise<PrivateRedis> {
  if (!redisServerPath) throw new Error("redis-server not found (apt-get install -y redis-server)");
  const port = await freePort();
  let child: ChildProcess | null = null;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (child) return;
      const proc = spawn(
        redisServerPath as string,
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      child = proc;
      await new Promise<void>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000);
        proc.stdout?.on("data", (d: Buffer) => {
          out += d;
          if (out.includes("Ready to accept connections")) {
            clearTimeout(timer);
            resolve();
          }
        });
        proc.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`redis-server exited (${code}):\n${out}`));
        });
      });
    },
    async stop() {
      const proc = child;
      child = null;
      if (!proc || proc.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        proc.once("exit", () => resolve());
        proc.kill("SIGKILL");
      });
    },
  };
  await redis.start();
  return redis;
}

/** A TCP server that accepts connections and never answers: a Redis that hangs (stopped, overloaded). */
export async function blackHole(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
