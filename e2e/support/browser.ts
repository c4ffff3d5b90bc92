import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { chromiumPath } from "./chromium.js";

export type BrowserSession = {
  context: BrowserContext;
  page: Page;
  errors: string[];
  close: () => Promise<void>;
};

/**
 * Launches Debian's Chromium headless with a fresh profile. `errors` collects uncaught page errors,
 * which a test should expect to stay empty.
 */
export async function openBrowser(
  options: { userAgent?: string; viewport?: { width: number; height: number } } = {},
) {
  if (!chromiumPath) throw new Error("no Chromium");
  const profile = mkdtempSync(path.join(tmpdir(), "turnout-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    userAgent: options.userAgent,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  } satisfies BrowserSession;
}
