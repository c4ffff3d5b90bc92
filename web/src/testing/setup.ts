import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { resetSessionEndNotice } from "../api/client";
import { resetDeviceIdCache } from "../api/device";
import { fakeLiveChannels } from "./fake-live-channel";

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
  localStorage.clear();
  sessionStorage.clear();
  resetSessionEndNotice();
  resetDeviceIdCache();
  fakeLiveChannels.length = 0;
  vi.unstubAllGlobals();
  vi.useRealTimers();
});
