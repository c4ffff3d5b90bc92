import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { resetEarlyAnswers, resetSessionEndNotice } from "../api/client";
import { resetDeviceIdCache } from "../api/device";
import { fakeLiveChannels } from "./fake-live-channel";

// findBy/waitFor wait up to 10 s, not 1 s: a lazily loaded screen's first appearance in a test file
// includes compiling its modules, which took 5-6 s for the admin console on a fresh 2-core machine
// (CI runs every suite at once). A screen that never appears still fails, within the test's 15 s.
configure({ asyncUtilTimeout: 10_000 });

// No test opens a real socket: the live channel is a fake each test drives (fake-live-channel.ts).
vi.mock("../api/live-socket", async () => ({
  openLiveChannel: (await import("./fake-live-channel")).openFakeLiveChannel,
}));

// jsdom has no matchMedia; MUI's colour-scheme handling and useMediaQuery need it.
if (!window.matchMedia) {
  Object.defineProperty(window, "matchMedia", {
    writable: true,
    configurable: true,
    value: (query: string): MediaQueryList => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }),
  });
}

// jsdom does not scroll; sign-out resets the scroll position.
Object.defineProperty(window, "scrollTo", { writable: true, configurable: true, value: () => {} });

afterEach(() => {
  cleanup();
  // The app follows the page's address (wouter's browser location): each test starts at / with no
  // history state left by the last one's navigation.
  window.history.replaceState(null, "", "/");
  localStorage.clear();
  sessionStorage.clear();
  resetSessionEndNotice();
  resetEarlyAnswers();
  resetDeviceIdCache();
  fakeLiveChannels.length = 0;
  vi.unstubAllGlobals();
  vi.useRealTimers();
});
