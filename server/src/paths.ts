import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The server package's folder (the one with its package.json), found from where this module runs:
 * `server/src` from source (tests, development) or `server/dist` once bundled (`npm start`), so files
 * read at run time (migrations, the embedded database's worker, the web build) resolve from both.
 */
export const serverRoot = findServerRoot(import.meta.dirname);

/** The repository (workspace) root. */
export const repoRoot = path.resolve(serverRoot, "..");

function findServerRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "@turnout/server"
    )
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`server: no @turnout/server package.json above ${start}`);
  }
}
