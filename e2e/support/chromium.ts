import { existsSync } from "node:fs";

/** The Chromium the browser tests drive: CHROMIUM_PATH, else Debian's /usr/bin/chromium; null when absent. */
export const chromiumPath: string | null = (() => {
  const candidate = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  return existsSync(candidate) ? candidate : null;
})();
