import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { STORAGE_KEYS } from "@turnout/domain";
import { lazy } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetReportedClientErrors } from "../api/client-errors";
import { storage } from "../api/storage";
import { LazyMount } from "./lazy-mount";
import {
  AppErrorBoundary,
  isLoadFailure,
  LOAD_FAILURE_RELOAD_GAP_MS,
  type ReloadEnvironment,
  reloadAfterLoadFailure,
  reportUncaughtErrors,
} from "./load-failure";

// What each browser's failed `import()` says (Chromium, Firefox, Safari) and Vite's failed style preload.
const LOAD_FAILURES = [
  new TypeError(
    "Failed to fetch dynamically imported module: https://turnout.example/assets/my-alerts-dialog-B1x.js",
  ),
  new TypeError("error loading dynamically imported module: https://turnout.example/assets/x.js"),
  new TypeError("Importing a module script failed."),
  new Error("Unable to preload CSS for /assets/x.css"),
];

function fakeEnvironment(start: number, online = true) {
  let now = start;
  let last: number | null = null;
  const reload = vi.fn();
  const env: ReloadEnvironment = {
    now: () => now,
    isOnline: () => online,
    reload,
    lastReloadAt: () => last,
    setLastReloadAt: (at) => {
      last = at;
    },
  };
  return { env, reload, advance: (ms: number) => (now += ms) };
}

describe("isLoadFailure", () => {
  it("knows each browser's failed import", () => {
    for (const error of LOAD_FAILURES) expect(isLoadFailure(error)).toBe(true);
  });

  it("leaves other errors alone", () => {
    expect(isLoadFailure(new TypeError("Failed to fetch"))).toBe(false);
    expect(isLoadFailure(new Error("Cannot read properties of undefined"))).toBe(false);
    expect(isLoadFailure("dynamically imported module")).toBe(false);
  });
});

describe("reloadAfterLoadFailure", () => {
  it("reloads once, not again within the gap, and again after it", () => {
    const { env, reload, advance } = fakeEnvironment(1_000_000);
    expect(reloadAfterLoadFailure(env)).toBe(true);
    advance(LOAD_FAILURE_RELOAD_GAP_MS - 1);
    expect(reloadAfterLoadFailure(env)).toBe(false);
    advance(1);
    expect(reloadAfterLoadFailure(env)).toBe(true);
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it("does not reload offline: the page would come back without the part either", () => {
    const { env, reload } = fakeEnvironment(1_000_000, false);
    expect(reloadAfterLoadFailure(env)).toBe(false);
    expect(reload).not.toHaveBeenCalled();
  });

  it("keeps the time of the reload in the tab's session storage", () => {
    expect(storage.getLoadFailureReloadAt()).toBeNull();
    storage.setLoadFailureReloadAt(1234);
    expect(sessionStorage.getItem(STORAGE_KEYS.loadFailureReloadAt)).toBe("1234");
    expect(storage.getLoadFailureReloadAt()).toBe(1234);
    sessionStorage.setItem(STORAGE_KEYS.loadFailureReloadAt, "garbage");
    expect(storage.getLoadFailureReloadAt()).toBeNull();
  });
});

/** The server's answer to every error report; the tests read what was sent. */
const reports = vi.fn((_url: string, _init?: RequestInit) =>
  Promise.resolve(new Response(null, { status: 204 })),
);
const reported = () => reports.mock.calls.map(([, init]) => JSON.parse(String(init?.body)));

function Broken(): never {
  throw new Error("Cannot read properties of undefined (reading 'map')");
}

describe("a part of the app that fails", () => {
  beforeEach(() => {
    // The tab reloaded a moment ago: the boundaries show their notice instead of reloading (jsdom
    // cannot navigate; reloadAfterLoadFailure's own tests cover the reload).
    storage.setLoadFailureReloadAt(Date.now());
    // React reports every caught error on the console.
    vi.spyOn(console, "error").mockImplementation(() => {});
    resetReportedClientErrors();
    vi.stubGlobal("fetch", reports);
    reports.mockClear();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("leaves the screen under a dialog that failed to load working, with a notice and Reload", async () => {
    const Dialog = lazy(() => Promise.reject(LOAD_FAILURES[0]));
    render(
      <AppErrorBoundary>
        <p>The feed</p>
        <LazyMount when>
          <Dialog />
        </LazyMount>
      </AppErrorBoundary>,
    );
    const notice = await screen.findByRole("alert");
    expect(notice).toHaveTextContent("Turnout could not load this part of the app. Check the connection");
    expect(screen.getByRole("button", { name: "Reload" })).toBeInTheDocument();
    expect(screen.getByText("The feed")).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByText("The feed")).toBeInTheDocument();
  });

  it("shows a page with Reload, not a blank one, when rendering fails", () => {
    render(
      <AppErrorBoundary>
        <LazyMount when>
          <Broken />
        </LazyMount>
      </AppErrorBoundary>,
    );
    expect(screen.getByRole("alert")).toHaveTextContent(
      "Something went wrong on this screen. Reload Turnout to carry on.",
    );
    expect(screen.getByRole("button", { name: "Reload" })).toBeInTheDocument();
    // And the server is told, so that an admin sees it.
    expect(reported()).toEqual([
      expect.objectContaining({
        kind: "render",
        message: "Cannot read properties of undefined (reading 'map')",
      }),
    ]);
  });

  it("does not report a part that failed to load: the screen says so, and it is the network's", async () => {
    const Dialog = lazy(() => Promise.reject(LOAD_FAILURES[0]));
    render(
      <AppErrorBoundary>
        <LazyMount when>
          <Dialog />
        </LazyMount>
      </AppErrorBoundary>,
    );
    await screen.findByRole("alert");
    expect(reports).not.toHaveBeenCalled();
  });

  it("reports errors and rejected promises nothing caught, but not a failed load", () => {
    const target = new EventTarget() as Window;
    reportUncaughtErrors(target);
    target.dispatchEvent(new ErrorEvent("error", { error: new RangeError("Invalid time value") }));
    target.dispatchEvent(new ErrorEvent("error", { message: "Script error." }));
    const rejection = (reason: unknown) => Object.assign(new Event("unhandledrejection"), { reason });
    target.dispatchEvent(rejection(new Error("socket closed")));
    target.dispatchEvent(rejection(LOAD_FAILURES[0]));
    expect(reported().map((r) => [r.kind, r.message])).toEqual([
      ["error", "RangeError: Invalid time value"],
      ["error", "Script error."],
      ["unhandled_rejection", "socket closed"],
    ]);
  });
});
