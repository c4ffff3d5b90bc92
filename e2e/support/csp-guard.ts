import { afterAll, afterEach } from "vitest";
import { takeCspViolations } from "./browser.js";

// The server sends a Content-Security-Policy with every page: a test during which the app broke it
// (a script, style, connection or worker the policy refuses) fails, naming what was refused.
function failOnViolations(when: string): void {
  const violations = takeCspViolations();
  if (violations.length > 0) {
    throw new Error(`Content-Security-Policy violations ${when}:\n  ${violations.join("\n  ")}`);
  }
}

afterEach(() => failOnViolations("during this test"));
afterAll(() => failOnViolations("after the last test"));
