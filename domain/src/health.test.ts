import { describe, expect, it } from "vitest";
import {
  CACHE_DOWN_REDUCED_TEXT,
  computeHealth,
  hitRatioColor,
  memoryBarColor,
  SINGLE_INSTANCE_TEXT,
  smsSuccessColor,
  usageBarColor,
  VIDEO_CONVERSION_UNAVAILABLE_TEXT,
} from "./health.js";
import { receiverHealth } from "./receivers.js";

const ok = { memoryPercent: 50, cpuPercent: 20, databaseConnected: true, cacheConnected: true };

describe("computeHealth", () => {
  it("is healthy with no issues or warnings when all is well", () => {
    expect(computeHealth(ok)).toEqual({ overall: "healthy", issues: [], warnings: [], notes: [] });
  });

  it("warns above 80% memory and is critical above 90%", () => {
    expect(computeHealth({ ...ok, memoryPercent: 80 }).overall).toBe("healthy");
    const high = computeHealth({ ...ok, memoryPercent: 80.5 });
    expect(high.overall).toBe("warning");
    expect(high.warnings).toEqual(["Memory usage is high (80.5%)"]);
    expect(computeHealth({ ...ok, memoryPercent: 90 }).overall).toBe("warning");
    const critical = computeHealth({ ...ok, memoryPercent: 91 });
    expect(critical.overall).toBe("critical");
    expect(critical.issues).toEqual(["Memory usage is critical (91%)"]);
    expect(critical.warnings).toEqual([]);
  });

  it("is critical while an SMS budget reached within the hour holds strangers' SMS back", () => {
    const held = computeHealth({ ...ok, smsBudgetsReached: ["unauth_hour"] });
    expect(held.overall).toBe("critical");
    expect(held.issues).toEqual([
      "SMS budget reached: the hourly budget for sign-in and registration SMS (sign-in codes for new devices are held back)",
    ]);
  });

  it("warns above 80% CPU", () => {
    expect(computeHealth({ ...ok, cpuPercent: 80 }).overall).toBe("healthy");
    const busy = computeHealth({ ...ok, cpuPercent: 81 });
    expect(busy.overall).toBe("warning");
    expect(busy.warnings).toEqual(["CPU usage is high (81%)"]);
  });

  it("is critical when the database or cache store is not connected", () => {
    expect(computeHealth({ ...ok, databaseConnected: false })).toEqual({
      overall: "critical",
      issues: ["Database is not connected"],
      warnings: [],
      notes: [],
    });
    // A configured Redis that is down: SPEC 9's critical issue, and what runs reduced meanwhile.
    expect(computeHealth({ ...ok, cacheConnected: false })).toEqual({
      overall: "critical",
      issues: ["Cache store is not connected"],
      warnings: [CACHE_DOWN_REDUCED_TEXT],
      notes: [],
    });
  });

  it("says 'single instance (no Redis)' as information, not a warning, when no cache store is configured", () => {
    expect(computeHealth({ ...ok, cacheConnected: false, cacheNotConfigured: true })).toEqual({
      overall: "healthy",
      issues: [],
      warnings: [],
      notes: [SINGLE_INSTANCE_TEXT],
    });
    expect(SINGLE_INSTANCE_TEXT).toBe("Single instance (no Redis)");
    expect(computeHealth({ ...ok, cacheNotConfigured: false, cacheConnected: false }).overall).toBe(
      "critical",
    );
  });

  it("warns, and only warns, when video conversion is unavailable (no ffmpeg)", () => {
    expect(computeHealth({ ...ok, videoConversionUnavailable: true })).toEqual({
      overall: "warning",
      issues: [],
      warnings: [VIDEO_CONVERSION_UNAVAILABLE_TEXT],
      notes: [],
    });
    expect(computeHealth({ ...ok, videoConversionUnavailable: false }).overall).toBe("healthy");
  });

  it("is critical for a receiver down alone for an agency, and warns for other receiver and delivery alarms", () => {
    const receivers = receiverHealth([
      { id: 1, name: "Bendigo", state: "down", agencyIds: [1] },
      { id: 2, name: "Ballarat", state: "late", agencyIds: [2] },
    ]);
    expect(computeHealth({ ...ok, receivers })).toEqual({
      overall: "critical",
      issues: ["Receiver Bendigo is down and is the only receiver for agency 1"],
      warnings: ["Receiver Ballarat is late"],
      notes: [],
    });
    expect(computeHealth({ ...ok, deliveryAlarms: ["SMS provider failures: 9 in 15 min"] })).toMatchObject({
      overall: "warning",
      warnings: ["SMS provider failures: 9 in 15 min"],
    });
  });

  it("warns of errors people's apps reported in the last hour, and not when there were none", () => {
    expect(computeHealth({ ...ok, appErrorsLastHour: 1 })).toMatchObject({
      overall: "warning",
      warnings: ["1 error in people's apps in the last hour (system log, category web)"],
    });
    expect(computeHealth({ ...ok, appErrorsLastHour: 12 }).warnings).toEqual([
      "12 errors in people's apps in the last hour (system log, category web)",
    ]);
    expect(computeHealth({ ...ok, appErrorsLastHour: 0 })).toMatchObject({
      overall: "healthy",
      warnings: [],
    });
  });

  it("lists issues and warnings together, critical winning", () => {
    const result = computeHealth({
      memoryPercent: 95,
      cpuPercent: 99,
      databaseConnected: false,
      cacheConnected: true,
    });
    expect(result.overall).toBe("critical");
    expect(result.issues).toHaveLength(2);
    expect(result.warnings).toHaveLength(1);
  });

  it("skips missing or non-numeric metrics", () => {
    expect(computeHealth({ databaseConnected: true, cacheConnected: true }).overall).toBe("healthy");
    expect(
      computeHealth({
        memoryPercent: null,
        cpuPercent: Number.NaN,
        databaseConnected: true,
        cacheConnected: true,
      }).overall,
    ).toBe("healthy");
  });
});

describe("bar colours", () => {
  it("usage bars: error above 80, warning above 60", () => {
    expect([60, 61, 80, 81].map(usageBarColor)).toEqual(["success", "warning", "warning", "error"]);
  });

  it("memory bars: error above 90, warning above 80", () => {
    expect([80, 81, 90, 91].map(memoryBarColor)).toEqual(["success", "warning", "warning", "error"]);
  });

  it("hit ratios: success above 95, warning above 90, else error", () => {
    expect([90, 91, 95, 96].map(hitRatioColor)).toEqual(["error", "warning", "warning", "success"]);
  });

  it("SMS success rate: success at 95 or more, warning at 80 or more, else error", () => {
    expect([79.9, 80, 94.9, 95].map(smsSuccessColor)).toEqual(["error", "warning", "warning", "success"]);
  });
});
