import { ensureServerBuilt } from "../../scripts/server-build.mjs";
// @ts-expect-error: a plain .mjs build helper shared with `npm start`
import { ensureWebBuilt } from "../../scripts/web-build.mjs";
import { chromiumPath } from "./chromium.js";

/**
 * Browser tests run against what `npm start` runs: the production web build (when a browser will look
 * at it) and the compiled server, each built once here and only when stale.
 */
export default async function setup(): Promise<void> {
  await ensureServerBuilt({ quiet: true });
  if (chromiumPath) ensureWebBuilt({ quiet: true });
}
