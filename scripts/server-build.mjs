// Builds the server into plain JavaScript (server/dist/main.js) when it is missing or older than its
// sources, so `npm start` runs Node on compiled code with no TypeScript loader at run time: the loader
// and its compiled-module cache cost the running process memory (bench/README.md, idle memory).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { isStale } from "./stale.mjs";

const root = path.resolve(import.meta.dirname, "..");
const outFile = path.join(root, "server/dist/main.js");
const sources = ["server/src", "server/package.json", "domain/src", "domain/package.json"];

/** How Node runs the compiled server (`npm start`, and the benchmarks that measure what it runs). */
export const SERVER_COMMAND = ["server/dist/main.js"];

/**
 * The environment the compiled server starts with (`npm start`, the systemd unit, the benchmarks), under
 * what the user sets. glibc's malloc keeps its default threshold for blocks of their own (128 KB) fixed
 * instead of raising it each time such a block is freed: raised, the large blocks that starting the
 * embedded database allocates and frees on V8's threads (compiling its WebAssembly) come from the
 * threads' arenas and stay resident there (20-50 MB idle on PGlite, bench/results/pglite-memory.md).
 * Other C libraries ignore the name.
 */
export const SERVER_ENV = { MALLOC_MMAP_THRESHOLD_: "131072" };

/** True when server/dist must be (re)built. */
export function serverBuildIsStale() {
  return isStale(root, outFile, sources);
}

/**
 * Bundles server/src/main.ts with the domain workspace (TypeScript, so it must be compiled in) into one
 * ES module. Every npm dependency stays external and is loaded from node_modules as usual: native
 * addons (sharp), the embedded database's WASM files and packages read by path need their own
 * folders. Takes well under a second.
 */
export async function ensureServerBuilt({ quiet = false, force = false } = {}) {
  if (!force && !serverBuildIsStale()) return false;
  if (!quiet) process.stdout.write("Building the server (server/dist)...\n");
  const manifest = JSON.parse(readFileSync(path.join(root, "server/package.json"), "utf8"));
  const external = Object.keys(manifest.dependencies ?? {}).filter((name) => name !== "@turnout/domain");
  const result = await build({
    entryPoints: [path.join(root, "server/src/main.ts")],
    outfile: outFile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external,
    // The map holds positions only (the sources are in the repository): the logger reads it when it
    // first writes a stack of the bundle (server/src/support/stack-sources.ts). Node's
    // `--enable-source-maps` would read and keep every dependency's map as well, ~4 MB of an idle server.
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: quiet ? "error" : "warning",
    legalComments: "none",
    metafile: true,
    absWorkingDir: root,
  });
  const doubles = testDoublesIn(Object.keys(result.metafile.inputs));
  if (doubles.length > 0) {
    rmSync(outFile, { force: true });
    throw new Error(`The production server must not contain test doubles: ${doubles.join(", ")}`);
  }
  keepAscii(outFile);
  return true;
}

/**
 * Replaces the non-ASCII characters left in the bundle, one for one, so that V8 keeps its source (held
 * for the life of the process) at one byte a character rather than two: esbuild escapes every other
 * non-ASCII character, but not those of the comments it keeps (a dependency's "—" in a doc comment
 * doubled the bundle's 0.9 MB in memory). One UTF-16 unit for one keeps the map's columns right.
 */
function keepAscii(file) {
  const source = readFileSync(file, "utf8");
  if (/[\u0080-\uffff]/.test(source)) writeFileSync(file, source.replace(/[\u0080-\uffff]/g, "?"));
}

/** The folder of the test doubles (stand-ins for MessageMedia, web push services, the ingest API). */
export const TEST_DOUBLES = "server/src/testing/";

/** The bundle's inputs (paths relative to the repository) that are test doubles: none may be built in. */
export function testDoublesIn(inputs) {
  return inputs.filter((file) => file.replaceAll("\\", "/").includes(TEST_DOUBLES));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureServerBuilt({ force: process.argv.includes("--force") }).catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
