import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, stopChild } from "./server.js";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const deployDir = path.join(repoRoot, "deploy/nginx");

/** Debian's nginx (`.ci/run` installs it), or NGINX_PATH. */
export const nginxPath = [process.env.NGINX_PATH, "/usr/sbin/nginx"].find(
  (p): p is string => !!p && existsSync(p),
);

export type RunningProxy = {
  url: string;
  /** Access-log lines so far: `<client address> <upstream address(es)> <status> "<request line>"`. */
  accessLog: () => string[];
  /**
   * The access-log lines matching `match`, once there are at least `count` of them. nginx writes a
   * request's line after its response has gone out, so a client that has its answer may read the
   * log a moment before the line is there.
   */
  loggedRequests: (match: (line: string) => boolean, count?: number) => Promise<string[]>;
  stop: () => Promise<void>;
};

/**
 * Starts nginx in front of `upstreams` (`127.0.0.1:port` each) with the shipped configuration: the
 * sticky map (deploy/nginx/turnout-sticky.conf), the `upstream turnout` block of turnout.conf with its
 * servers swapped for `upstreams` (same parameters), and the proxy rules (turnout-proxy.conf) in a
 * plain-http server on a free port of 127.0.0.1. Only TLS and the listen address differ from a deployment.
 * `workerConnections`: the one worker's connections, clients' and instances' together (a benchmark
 * with a thousand clients needs more than a test's 1,024).
 */
export async function startProxy(
  upstreams: string[],
  { workerConnections = 1024 }: { workerConnections?: number } = {},
): Promise<RunningProxy> {
  if (!nginxPath) throw new Error("nginx not found (apt-get install -y nginx, or set NGINX_PATH)");
  const dir = mkdtempSync(path.join(tmpdir(), "turnout-nginx-"));
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(path.join(dir, sub));
  const port = await freePort();
  const conf = [
    // A root master would run its workers as nobody, who cannot write this folder's temp files.
    process.getuid?.() === 0 ? "user root;" : "",
    "worker_processes 1;",
    `error_log ${dir}/error.log warn;`,
    `pid ${dir}/nginx.pid;`,
    `events { worker_connections ${workerConnections}; }`,
    "http {",
    `  log_format turnout_test '$remote_addr $upstream_addr $status "$request"';`,
    `  access_log ${dir}/access.log turnout_test;`,
    `  client_body_temp_path ${dir}/body;`,
    `  proxy_temp_path ${dir}/proxy;`,
    `  fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi;`,
    `  scgi_temp_path ${dir}/scgi;`,
    `  include ${deployDir}/turnout-sticky.conf;`,
    upstreamBlock(upstreams),
    "  server {",
    `    listen 127.0.0.1:${port};`,
    `    include ${deployDir}/turnout-proxy.conf;`,
    "  }",
    "}",
  ].join("\n");
  const confFile = path.join(dir, "nginx.conf");
  writeFileSync(confFile, conf);
  const child = spawn(nginxPath, ["-p", dir, "-c", confFile, "-g", "daemon off;"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  const accessLog = () => readOr(path.join(dir, "access.log")).split("\n").filter(Boolean);
  await waitForListening(port, child, () => `${output}${readOr(path.join(dir, "error.log"))}`);
  return {
    url,
    accessLog,
    loggedRequests: async (match, count = 1) => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const lines = accessLog().filter(match);
        if (lines.length >= count) return lines;
        if (Date.now() > deadline) throw new Error(`fewer than ${count} matching access-log lines in 5 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** turnout.conf's `upstream turnout { ... }` with its `server` lines replaced by `upstreams`. */
function upstreamBlock(upstreams: string[]): string {
  const shipped = readFileSync(path.join(deployDir, "turnout.conf"), "utf8");
  const block = shipped.match(/^upstream turnout \{[\s\S]*?^\}/m)?.[0];
  const serverLine = block?.match(/^\s*server\s+\S+(.*);$/m);
  if (!block || !serverLine) throw new Error("deploy/nginx/turnout.conf has no upstream turnout block");
  const servers = upstreams.map((u) => `    server ${u}${serverLine[1]};`).join("\n");
  return block.replace(/^\s*server\s+\S+.*;\n/gm, "").replace(/\n\}$/, `\n${servers}\n}`);
}

function readOr(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

async function waitForListening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${output()}`);
    const up = await new Promise<boolean>((resolve) => {
      const req = http.get({ host: "127.0.0.1", port, path: "/api/health" }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nginx did not listen within 10 s:\n${output()}`);
}

/** An HTTP answer read whole. */
export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/**
 * Calls `url` from the local address `from` (127.0.0.2, 127.0.0.3, ...: Linux routes all of 127/8 to
 * the loopback), so nginx sees that address as the client's, as it would see a real client's.
 */
export function requestFrom(
  from: string,
  method: string,
  url: string,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        localAddress: from,
        headers: { ...(payload ? { "Content-Type": "application/json" } : {}), ...headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
