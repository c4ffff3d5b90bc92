import { CLIENT_ERRORS_PER_PAGE_LOAD, type ClientErrorKind, clientErrorReport } from "@turnout/domain";
import { config } from "../config";
import { sessionAuthorization } from "./client";

/** Which release of the app this is: the name of the script this module was built into (hashed). */
const release = new URL(import.meta.url).pathname.split("/").pop() || "unknown";

/**
 * What browsers raise that is no fault of the app: Chromium's notice that a resize observer (the
 * feed's list measures its cards with one) will report a change in the next frame rather than this one.
 */
const NOT_A_FAULT = /^ResizeObserver loop/;

/** Messages this page load has reported: each once, and at most CLIENT_ERRORS_PER_PAGE_LOAD. */
const reported = new Set<string>();

/**
 * Tells the server of an error in the app (POST /api/client-errors: the system log and the System
 * Monitor), so that it is not seen only by the person in front of it. Each message once per page load,
 * a few at most; never throws and never waits: reporting must not add a failure of its own.
 */
export function reportClientError(error: unknown, kind: ClientErrorKind): void {
  try {
    const report = clientErrorReport(error, kind, { path: window.location.pathname, release });
    if (NOT_A_FAULT.test(report.message)) return;
    if (reported.has(report.message) || reported.size >= CLIENT_ERRORS_PER_PAGE_LOAD) return;
    reported.add(report.message);
    // The session, when there is one: only signed-in people's reports reach the health card.
    const authorization = sessionAuthorization();
    // keepalive: the report still goes out when the person reloads straight away.
    fetch(`${config.apiBaseUrl}/client-errors`, {
      method: "POST",
      keepalive: true,
      headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(report),
    }).catch(() => {});
  } catch {
    // nothing more can be done from here
  }
}

/** For tests: forget what this page load reported. */
export function resetReportedClientErrors(): void {
  reported.clear();
}
