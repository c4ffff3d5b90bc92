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

/** Content-Security-Policy violations reported by any open browser and not yet taken. */
const cspViolations: string[] = [];

/**
 * Returns and forgets the CSP violations reported so far. The e2e setup file (csp-guard.ts) fails the
 * test during which any were reported; a test that provokes one on purpose takes it itself.
 */
export function takeCspViolations(): string[] {
  return cspViolations.splice(0);
}

// Runs in every document before its own scripts; the binding is Playwright's, so CSP cannot block it.
const REPORT_VIOLATIONS = `document.addEventListener("securitypolicyviolation", (e) => {
  window.__turnoutCspViolation(
    e.effectiveDirective + " refused " + (e.blockedURI || "?") + " at " + e.sourceFile + ":" + e.lineNumber,
  );
});`;

/**
 * Launches Debian's Chromium headless with a fresh profile. `errors` collects uncaught page errors,
 * which a test should expect to stay empty. Every Content-Security-Policy violation (the
 * `securitypolicyviolation` event, or Chromium's "Refused to ..." console message) is recorded for
 * the CSP guard, so a page that breaks the policy fails the test.
 */
export async function openBrowser(
  options: {
    userAgent?: string;
    viewport?: { width: number; height: number };
    /** "block": no service worker (Playwright's routes do not see what a worker fetches). */
    serviceWorkers?: "allow" | "block";
  } = {},
) {
  if (!chromiumPath) throw new Error("no Chromium");
  const profile = mkdtempSync(path.join(tmpdir(), "turnout-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    userAgent: options.userAgent,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    serviceWorkers: options.serviceWorkers ?? "allow",
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
  await context.exposeBinding("__turnoutCspViolation", (_source, text: string) => {
    cspViolations.push(text);
  });
  await context.addInitScript({ content: REPORT_VIOLATIONS });
  context.on("console", (message) => {
    const text = message.text();
    if (/Content Security Policy|Refused to/.test(text)) cspViolations.push(`console: ${text}`);
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
