// The dependency rules (README, Architecture; .dependency-cruiser.cjs): on the server a module imports
// only domain/, the shell, server/src/shared and its own files; the shell never imports a module;
// production code never imports a test double. On the web no feature imports another, and api/ and ui/
// import no feature. `npm test` runs it as a check; `node scripts/check-deps.mjs` alone.
// The few imports between modules not yet turned into events or shared read models are listed in
// .dependency-cruiser-known-violations.json: any other breaks the check, and so does a listed one
// that comes back after its entry is removed. `--update-known` rewrites that list (only ever to shrink it).
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const known = ".dependency-cruiser-known-violations.json";
const args = ["depcruise", "server/src", "web/src", "--config", ".dependency-cruiser.cjs"];
const update = process.argv.includes("--update-known");
const result = spawnSync(
  "npx",
  update
    ? [...args, "--output-type", "baseline", "--output-to", known]
    : [...args, "--ignore-known", known, "--output-type", "err"],
  { cwd: root, stdio: "inherit" },
);
if (update && result.status === 0) {
  spawnSync("npx", ["biome", "format", "--write", known], { cwd: root, stdio: "inherit" });
}
process.exit(result.status ?? 1);
