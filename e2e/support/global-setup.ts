// @ts-expect-error: a plain .mjs build helper shared with `npm start`
import { ensureWebBuilt } from "../../scripts/web-build.mjs";
import { chromiumPath } from "./chromium.js";

/** Browser tests run against the production build, so build it once (only when stale). */
export default function setup(): void {
  if (chromiumPath) ensureWebBuilt({ quiet: true });
}
