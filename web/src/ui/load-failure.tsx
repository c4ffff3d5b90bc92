import { PRODUCT_NAME } from "@turnout/domain";
import { type ReactNode, useState } from "react";
import { ErrorBoundary, type FallbackProps } from "react-error-boundary";
import { reportClientError } from "../api/client-errors";
import { storage } from "../api/storage";
import { Button } from "./kit/kit";
import "./screens.css";

/** A tab reloads itself at most once in this long to recover from a part of the app that failed to load. */
export const LOAD_FAILURE_RELOAD_GAP_MS = 60_000;

/**
 * True for the error a failed `import()` of one of the app's parts raises: after a release, an open
 * tab asks for a file the server no longer has; offline, for one it never fetched. Each browser words
 * it its own way (Chromium, Firefox, Safari, then Vite's preload of a part's styles).
 */
export function isLoadFailure(error: unknown): boolean {
  return (
    error instanceof Error &&
    /dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(error.message)
  );
}

/** What a reload needs from the browser; tests pass fakes. */
export interface ReloadEnvironment {
  now: () => number;
  isOnline: () => boolean;
  reload: () => void;
  lastReloadAt: () => number | null;
  setLastReloadAt: (at: number) => void;
}

const browserEnvironment: ReloadEnvironment = {
  now: () => Date.now(),
  isOnline: () => navigator.onLine,
  reload: () => window.location.reload(),
  lastReloadAt: () => storage.getLoadFailureReloadAt(),
  setLastReloadAt: (at) => storage.setLoadFailureReloadAt(at),
};

/**
 * Reloads the page to recover from a part that failed to load (a reload fetches the release's own
 * files), unless offline or this tab already did so in the last minute: a part that fails again is
 * not fixed by reloading in a loop. Returns true when the page reloads.
 */
export function reloadAfterLoadFailure(env: ReloadEnvironment = browserEnvironment): boolean {
  const now = env.now();
  const last = env.lastReloadAt();
  if (!env.isOnline() || (last !== null && now - last >= 0 && now - last < LOAD_FAILURE_RELOAD_GAP_MS))
    return false;
  env.setLastReloadAt(now);
  env.reload();
  return true;
}

/** A screen that failed: a part that did not load is reloaded; anything else is a bug, told to the server. */
function handleError(error: unknown) {
  if (isLoadFailure(error)) reloadAfterLoadFailure();
  else reportClientError(error, "render");
}

/**
 * Tells the server of errors nothing caught (an event handler's, a promise's), except a part that did
 * not load: that is the network's or a release's, and the screen that needed it says so.
 */
export function reportUncaughtErrors(target: Window = window): void {
  target.addEventListener("error", (event) => {
    const error: unknown = event.error ?? event.message;
    if (!isLoadFailure(error)) reportClientError(error, "error");
  });
  target.addEventListener("unhandledrejection", (event) => {
    if (!isLoadFailure(event.reason)) reportClientError(event.reason, "unhandled_rejection");
  });
}

function failureText(error: unknown): string {
  return isLoadFailure(error)
    ? `${PRODUCT_NAME} could not load this part of the app. Check the connection, then reload.`
    : `Something went wrong on this screen. Reload ${PRODUCT_NAME} to carry on.`;
}

function ReloadButton() {
  return (
    <Button variant="contained" onClick={() => window.location.reload()}>
      Reload
    </Button>
  );
}

function AppFailure({ error }: FallbackProps) {
  return (
    <div role="alert" className="centred-page centred-page--failure">
      <h1 className="kit-text-h6">{failureText(error)}</h1>
      <ReloadButton />
    </div>
  );
}

/**
 * Around the whole app: an error while rendering shows a page that says so with a Reload button,
 * rather than a blank page; a part that failed to load reloads the page once by itself.
 */
export function AppErrorBoundary({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary FallbackComponent={AppFailure} onError={handleError}>
      {children}
    </ErrorBoundary>
  );
}

/**
 * A lazily loaded dialog or notice that failed to load: the screen under it stays, with a notice that
 * can be dismissed (the part stays unavailable until a reload: React keeps a failed lazy load).
 */
function PartFailure({ error }: FallbackProps) {
  const [dismissed, setDismissed] = useState(false);
  // Only a failed load stays here; any other error is the whole app's (AppErrorBoundary).
  if (!isLoadFailure(error)) throw error;
  if (dismissed) return null;
  return (
    <div role="alert" className="part-failure">
      <p className="kit-text-body1">{failureText(error)}</p>
      <Button onClick={() => setDismissed(true)}>Dismiss</Button>
      <ReloadButton />
    </div>
  );
}

/** Around one lazily loaded part: its failed load leaves the screen under it working. */
export function PartErrorBoundary({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary FallbackComponent={PartFailure} onError={handleError}>
      {children}
    </ErrorBoundary>
  );
}
