// Gzipped JavaScript the browser must fetch before the login screen can render: the entry script
// web/dist/index.html loads plus every module it preloads. Reads the production build (run
// `npm run build` first). `--check` exits 1 when over the budget.
//   npx tsx bench/web/bundle-size.ts [--check] [--json]
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { machineLine } from "../support/machine.js";

/** The quality bar (issue 5): under 200 KB, 1 KB = 1000 bytes as Vite and Lighthouse count. */
export const BUDGET_BYTES = 200_000;

export type ScriptSize = { file: string; raw: number; gzip: number; brotli: number };

const distDir = path.resolve(import.meta.dirname, "../../web/dist");

/** The scripts index.html makes the browser load before anything renders: entry + modulepreloads. */
export function initialScripts(html: string): string[] {
  const files = new Set<string>();
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const isEntry = /^<script\b/.test(tag) && /type="module"/.test(tag);
    const isPreload = /^<link\b/.test(tag) && /rel="modulepreload"/.test(tag);
    const url = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1];
    if ((isEntry || isPreload) && url && !/^https?:/.test(url)) files.add(url.replace(/^\//, ""));
  }
  return [...files];
}

/** Raw, gzip (level 9, as a static precompressor would) and brotli sizes of each initial script. */
export function measure(dir = distDir): ScriptSize[] {
  const indexFile = path.join(dir, "index.html");
  if (!existsSync(indexFile)) throw new Error(`${indexFile} is missing: run \`npm run build\` first`);
  return initialScripts(readFileSync(indexFile, "utf8")).map((file) => {
    const bytes = readFileSync(path.join(dir, file));
    return {
      file,
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

function main() {
  const args = new Set(process.argv.slice(2));
  const scripts = measure();
  const total = scripts.reduce(
    (sum, s) => ({ raw: sum.raw + s.raw, gzip: sum.gzip + s.gzip, brotli: sum.brotli + s.brotli }),
    { raw: 0, gzip: 0, brotli: 0 },
  );
  const withinBudget = total.gzip < BUDGET_BYTES;
  if (args.has("--json")) {
    process.stdout.write(
      `${JSON.stringify({ scripts, total, budget: BUDGET_BYTES, withinBudget }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(`${machineLine()}\n\n`);
    process.stdout.write("| script | raw | gzip | brotli |\n|---|---:|---:|---:|\n");
    for (const s of scripts) {
      process.stdout.write(`| ${s.file} | ${kb(s.raw)} | ${kb(s.gzip)} | ${kb(s.brotli)} |\n`);
    }
    process.stdout.write(
      `| **total** | ${kb(total.raw)} | **${kb(total.gzip)}** | ${kb(total.brotli)} |\n\n`,
    );
    process.stdout.write(
      `gzip total ${kb(total.gzip)} against a budget of ${kb(BUDGET_BYTES)}: ${withinBudget ? "within" : "OVER"}\n`,
    );
  }
  if (args.has("--check") && !withinBudget) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
