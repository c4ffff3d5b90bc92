// Builds the web app when web/dist is missing or older than its sources.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { isStale } from "./stale.mjs";

const root = path.resolve(import.meta.dirname, "..");
const distIndex = path.join(root, "web/dist/index.html");
const sources = [
  "web/src",
  "web/public",
  "web/index.html",
  "web/vite.config.ts",
  "web/package.json",
  "domain/src",
];

/** True when web/dist must be (re)built. */
export function webBuildIsStale() {
  return isStale(root, distIndex, sources);
}

/** Builds web/dist if it is missing or stale; throws when the build fails. */
export function ensureWebBuilt({ quiet = false } = {}) {
  if (!webBuildIsStale()) return false;
  if (!quiet) process.stdout.write("Building the web app (web/dist)...\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  // Always the production build: a NODE_ENV inherited from the caller (Vitest sets "test" for the
  // browser tests' global setup) would make Vite bundle React's development build, which `npm start`
  // would then serve as it is not stale (seen: 246.8 KB gzip before login instead of ~167).
  const r = spawnSync(npm, ["run", "build", "-w", "web"], {
    cwd: root,
    stdio: quiet ? "pipe" : "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (r.status !== 0) {
    if (quiet) process.stderr.write(`${r.stdout ?? ""}${r.stderr ?? ""}`);
    throw new Error("The web build failed.");
  }
  return true;
}
