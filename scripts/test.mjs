// `npm test`: lint, type-check, then every Vitest project (domain, server on PGlite and, with
// DATABASE_URL, on PostgreSQL, web, and browser tests when a Chromium is found). Ends with one line:
// "N passed, N failed[, N skipped]".
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
const run = (cmd, args, extraEnv = {}) =>
  spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...env, ...extraEnv } }).status ?? 1;

let failedChecks = 0;
const check = (label, cmd, args) => {
  process.stdout.write(`\n== ${label}\n`);
  const ok = run(cmd, args) === 0;
  if (!ok) failedChecks++;
  process.stdout.write(`== ${label}: ${ok ? "ok" : "FAILED"}\n`);
};

check("lint and format (biome)", "npx", ["biome", "check", "."]);
check("type-check (tsc)", "npm", ["run", "--silent", "typecheck"]);
check("install builds nothing (package-lock.json)", "node", ["scripts/check-install.mjs"]);
check("dependency rule (dependency-cruiser)", "node", ["scripts/check-deps.mjs"]);

const chromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
if (!existsSync(chromium)) {
  process.stdout.write(
    `\n== Browser tests SKIPPED: no Chromium at ${chromium}. Install it (apt-get install -y chromium) ` +
      "or set CHROMIUM_PATH to run them.\n",
  );
}
process.stdout.write(
  process.env.DATABASE_URL
    ? "\n== Server tests run on PGlite and on PostgreSQL (DATABASE_URL).\n"
    : "\n== Server tests run on PGlite (set DATABASE_URL to run them on PostgreSQL as well).\n",
);

const report = path.join(root, ".vitest-report.json");
rmSync(report, { force: true });
process.stdout.write("\n== tests (vitest)\n");
const vitestStatus = run("npx", [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
]);

let passed = 0;
let failed = failedChecks;
let skipped = 0;
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  passed += r.numPassedTests ?? 0;
  failed +=
    (r.numFailedTests ?? 0) + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  if ((r.numTotalTests ?? 0) === 0) {
    process.stdout.write("No tests ran.\n");
    failed++;
  }
} else {
  failed++;
}
if (vitestStatus !== 0 && failed === 0) failed++;
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
process.exit(failed === 0 ? 0 : 1);
