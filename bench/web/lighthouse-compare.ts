// Lighthouse mobile performance of several builds of the web app, runs interleaved (A, B, A, B, ...)
// so that the load of a shared machine weighs on each build alike. Each build directory (made with
// `npx vite build --outDir DIR` in web/) is served as a static site with its precompressed .br/.gz
// files, as the server sends them; /api answers 404 (the login screen calls nothing at start).
//   npx tsx bench/web/lighthouse-compare.ts [--rounds 5] DIR_A DIR_B [...]
import { existsSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import path from "node:path";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import { machineLine } from "../support/machine.js";

const TYPES: Record<string, string> = {
  ".js": "text/javascript",
  ".html": "text/html",
  ".svg": "image/svg+xml",
  ".webmanifest": "application/manifest+json",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

function serveDirectory(dir: string): http.Server {
  return http
    .createServer((req, res) => {
      const urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
      if (urlPath.startsWith("/api/")) {
        res.writeHead(404, { "content-type": "application/json" }).end("{}");
        return;
      }
      let file = path.join(dir, urlPath);
      if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
        file = path.join(dir, "index.html");
      }
      const headers: Record<string, string> = {
        "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      };
      const accepts = String(req.headers["accept-encoding"] ?? "");
      for (const [encoding, suffix] of [
        ["br", ".br"],
        ["gzip", ".gz"],
      ] as const) {
        if (accepts.includes(encoding) && existsSync(`${file}${suffix}`)) {
          headers["content-encoding"] = encoding;
          file = `${file}${suffix}`;
          break;
        }
      }
      res.writeHead(200, headers).end(readFileSync(file));
    })
    .listen(0, "127.0.0.1");
}

type Run = { performance: number; tbt: number; lcp: number; load: number };

async function runOnce(url: string, chromePath: string): Promise<Run> {
  const load = loadavg()[0] ?? 0;
  const chrome = await launch({
    chromePath,
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic"],
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance"],
    });
    if (!result || result.lhr.runtimeError) throw new Error(result?.lhr.runtimeError?.message ?? "no result");
    const { audits, categories } = result.lhr;
    return {
      performance: Math.round((categories.performance?.score ?? 0) * 100),
      tbt: Math.round(audits["total-blocking-time"]?.numericValue ?? Number.NaN),
      lcp: Math.round(audits["largest-contentful-paint"]?.numericValue ?? Number.NaN),
      load,
    };
  } finally {
    chrome.kill();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const args = process.argv.slice(2);
  const roundsAt = args.indexOf("--rounds");
  const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 5;
  const dirs = args.map((dir) => path.resolve(dir));
  if (dirs.length === 0 || dirs.some((dir) => !existsSync(path.join(dir, "index.html")))) {
    throw new Error("pass build directories (each with an index.html)");
  }
  const chromePath = process.env.CHROME_PATH || process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  const servers = dirs.map(serveDirectory);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.once("listening", resolve))));
  const runs: Run[][] = dirs.map(() => []);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, server] of servers.entries()) {
        const { port } = server.address() as AddressInfo;
        runs[i]?.push(await runOnce(`http://127.0.0.1:${port}/`, chromePath));
      }
    }
  } finally {
    for (const server of servers) server.close();
  }
  process.stdout.write(`${machineLine()}\nLighthouse mobile, ${rounds} interleaved rounds, medians\n\n`);
  process.stdout.write("| build | performance | TBT | LCP | runs (performance/TBT ms/LCP ms @ load) |\n");
  process.stdout.write("|---|---:|---:|---:|---|\n");
  for (const [i, dir] of dirs.entries()) {
    const r = runs[i] ?? [];
    const each = r.map((x) => `${x.performance}/${x.tbt}/${x.lcp} @${x.load.toFixed(1)}`).join(", ");
    process.stdout.write(
      `| ${path.basename(dir)} | ${median(r.map((x) => x.performance))} | ${median(r.map((x) => x.tbt))} ms | ${median(r.map((x) => x.lcp))} ms | ${each} |\n`,
    );
  }
}

await main();
