// When a build output is older than its sources: shared by the web build and the server build.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** The newest modification time under `p` (node_modules skipped); 0 when it does not exist. */
export function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) {
    if (entry === "node_modules") continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** True when `output` is missing or any of `sources` (paths under `root`) changed after it was written. */
export function isStale(root, output, sources) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((s) => newestMtime(path.join(root, s)) > built);
}
