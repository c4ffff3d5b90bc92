import { describe, expect, it } from "vitest";
import {
  minutesWording,
  parseRetryAfterHeader,
  registerRateLimitMessage,
  retryAfterMinutes,
} from "./retry.js";

describe("retryAfterMinutes", () => {
  it("rounds seconds up to whole minutes", () => {
    expect(retryAfterMinutes(60)).toBe(1);
    expect(retryAfterMinutes(61)).toBe(2);
    expect(retryAfterMinutes(1)).toBe(1);
  });

  it("uses 900 s (15 minutes) when missing, non-positive or invalid", () => {
    expect(retryAfterMinutes()).toBe(15);
    expect(retryAfterMinutes(null)).toBe(15);
    expect(retryAfterMinutes(0)).toBe(15);
    expect(retryAfterMinutes(-5)).toBe(15);
    expect(retryAfterMinutes(Number.NaN)).toBe(15);
  });
});

describe("minutesWording", () => {
  it("uses singular for one and plural otherwise", () => {
    expect(minutesWording(1)).toBe("1 minute");
    expect(minutesWording(2)).toBe("2 minutes");
    expect(minutesWording(15)).toBe("15 minutes");
  });
});

describe("registerRateLimitMessage", () => {
  it("names the minutes to wait, rounded up", () => {
    expect(registerRateLimitMessage(900)).toBe(
      "Too many attempts. Please wait 15 minutes before trying again.",
    );
    expect(registerRateLimitMessage(61)).toBe(
      "Too many attempts. Please wait 2 minutes before trying again.",
    );
    expect(registerRateLimitMessage(30)).toBe("Too many attempts. Please wait 1 minute before trying again.");
  });

  it("says 'a few' minutes without a retry-after value", () => {
    expect(registerRateLimitMessage()).toBe(
      "Too many attempts. Please wait a few minutes before trying again.",
    );
    expect(registerRateLimitMessage(0)).toBe(
      "Too many attempts. Please wait a few minutes before trying again.",
    );
  });
});

describe("parseRetryAfterHeader", () => {
  const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);

  it("reads delta-seconds", () => {
    expect(parseRetryAfterHeader("120", NOW)).toBe(120);
    expect(parseRetryAfterHeader(" 0 ", NOW)).toBe(0);
  });

  it("reads an HTTP date as seconds from now, never negative", () => {
    expect(parseRetryAfterHeader("Sun, 22 Nov 2026 03:05:00 GMT", NOW)).toBe(300);
    expect(parseRetryAfterHeader("Sun, 22 Nov 2026 02:00:00 GMT", NOW)).toBe(0);
  });

  it("returns null when absent or unreadable", () => {
    expect(parseRetryAfterHeader(null, NOW)).toBeNull();
    expect(parseRetryAfterHeader(undefined, NOW)).toBeNull();
    expect(parseRetryAfterHeader("", NOW)).toBeNull();
    expect(parseRetryAfterHeader("later", NOW)).toBeNull();
    expect(parseRetryAfterHeader("-5", NOW)).toBeNull();
  });
});
