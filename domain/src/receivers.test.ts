import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  durationText,
  learnQuietPeriod,
  type ReceiverState,
  type ReceiverTiming,
  receiverChange,
  receiverChangeText,
  receiverHealth,
  receiverState,
} from "./receivers.js";

/**
 * A receiver as the server keeps it, on the test's clock: heartbeats and pages set its times, and the
 * checker reads its state and the change since the last look, as the server's checker does.
 */
function simulatedReceiver(settings: Partial<ReceiverTiming> = {}) {
  const timing: ReceiverTiming = {
    lastSeenAt: null,
    lastMessageAt: null,
    createdAt: Date.now(),
    heartbeatIntervalSeconds: 60,
    downAfterSeconds: 600,
    quietAfterSeconds: null,
    ...settings,
  };
  let state: ReceiverState = "unknown";
  const notices: string[] = [];
  return {
    heartbeat: () => {
      timing.lastSeenAt = Date.now();
    },
    page: () => {
      timing.lastSeenAt = Date.now();
      timing.lastMessageAt = Date.now();
    },
    /** One pass of the checker: the state now, and a notice when it changed in a way worth telling. */
    check: () => {
      const next = receiverState(timing);
      const change = receiverChange(state, next);
      state = next;
      if (change) notices.push(change);
      return state;
    },
    notices,
  };
}

describe("receiverState on a clock", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2026-11-27T00:00:00Z"));
  });
  afterEach(() => vi.useRealTimers());

  it("is unknown until first heard, then ok while heartbeats arrive every interval", () => {
    const rx = simulatedReceiver();
    expect(rx.check()).toBe("unknown");
    vi.advanceTimersByTime(3600_000);
    expect(rx.check()).toBe("unknown");
    for (let i = 0; i < 10; i++) {
      rx.heartbeat();
      vi.advanceTimersByTime(60_000);
      expect(rx.check()).toBe("ok");
    }
    expect(rx.notices).toEqual([]);
  });

  it("goes late after two missed intervals, down after the down setting, and recovers on the next heartbeat", () => {
    const rx = simulatedReceiver({ heartbeatIntervalSeconds: 60, downAfterSeconds: 600 });
    rx.heartbeat();
    expect(rx.check()).toBe("ok");
    vi.advanceTimersByTime(120_000);
    expect(rx.check()).toBe("ok"); // exactly two intervals: not yet
    vi.advanceTimersByTime(1);
    expect(rx.check()).toBe("late");
    vi.advanceTimersByTime(600_000 - 120_001);
    expect(rx.check()).toBe("late");
    vi.advanceTimersByTime(1);
    expect(rx.check()).toBe("down");
    vi.advanceTimersByTime(3600_000);
    expect(rx.check()).toBe("down");
    rx.heartbeat();
    expect(rx.check()).toBe("ok");
    // One notice per change, however many checks ran while in a state.
    expect(rx.notices).toEqual(["late", "down", "recovered"]);
  });

  it("is down at late when the down setting is below two intervals", () => {
    const rx = simulatedReceiver({ heartbeatIntervalSeconds: 60, downAfterSeconds: 30 });
    rx.heartbeat();
    rx.check();
    vi.advanceTimersByTime(90_000);
    expect(rx.check()).toBe("ok");
    vi.advanceTimersByTime(30_001);
    expect(rx.check()).toBe("down");
  });

  it("is quiet when it heartbeats but hears no page for its quiet period, and recovers on a page", () => {
    const rx = simulatedReceiver({ quietAfterSeconds: 3600 });
    rx.page();
    for (let minute = 1; minute <= 60; minute++) {
      vi.advanceTimersByTime(60_000);
      rx.heartbeat();
      expect(rx.check()).toBe("ok");
    }
    vi.advanceTimersByTime(1);
    rx.heartbeat();
    expect(rx.check()).toBe("quiet");
    vi.advanceTimersByTime(30_000);
    rx.heartbeat();
    expect(rx.check()).toBe("quiet");
    rx.page();
    expect(rx.check()).toBe("ok");
    expect(rx.notices).toEqual(["quiet", "recovered"]);
  });

  it("counts the quiet period from registration when no page was ever heard", () => {
    const rx = simulatedReceiver({ quietAfterSeconds: 600 });
    rx.heartbeat();
    expect(rx.check()).toBe("ok");
    vi.advanceTimersByTime(601_000);
    rx.heartbeat();
    expect(rx.check()).toBe("quiet");
  });

  it("a silent receiver is late or down, not quiet", () => {
    const rx = simulatedReceiver({ quietAfterSeconds: 60 });
    rx.page();
    vi.advanceTimersByTime(121_000);
    expect(rx.check()).toBe("late");
    vi.advanceTimersByTime(600_000);
    expect(rx.check()).toBe("down");
    rx.page();
    expect(rx.check()).toBe("ok");
    expect(rx.notices).toEqual(["late", "down", "recovered"]);
  });

  it("messages alone keep a PagerMon-style reader ok (they count as heartbeats)", () => {
    const rx = simulatedReceiver({ heartbeatIntervalSeconds: 900, downAfterSeconds: 3600 });
    for (let i = 0; i < 8; i++) {
      rx.page();
      vi.advanceTimersByTime(29 * 60_000);
      expect(rx.check()).toBe("ok");
    }
    vi.advanceTimersByTime(2 * 60_000);
    expect(rx.check()).toBe("late");
  });
});

describe("receiverChange", () => {
  it("names the new problem, a recovery from any problem, and nothing for a first contact", () => {
    expect(receiverChange("ok", "late")).toBe("late");
    expect(receiverChange("late", "down")).toBe("down");
    expect(receiverChange("ok", "quiet")).toBe("quiet");
    expect(receiverChange("down", "ok")).toBe("recovered");
    expect(receiverChange("quiet", "ok")).toBe("recovered");
    expect(receiverChange("late", "ok")).toBe("recovered");
    expect(receiverChange("unknown", "ok")).toBeNull();
    expect(receiverChange("down", "down")).toBeNull();
    expect(receiverChange("unknown", "down")).toBe("down");
  });

  it("words each notice with how long it has been", () => {
    const now = Date.parse("2026-11-27T10:00:00Z");
    const r = { lastSeenAt: now - 11 * 60_000, lastMessageAt: now - 3 * 3600_000 };
    expect(receiverChangeText("Bendigo rooftop", "down", r, now)).toContain("since 11 min ago");
    expect(receiverChangeText("Bendigo rooftop", "quiet", r, now)).toContain("last 3 h ago");
    expect(receiverChangeText("Bendigo rooftop", "recovered", r, now)).toContain("recovered");
  });
});

describe("durationText", () => {
  it("says seconds, minutes, hours and days", () => {
    expect(durationText(45_000)).toBe("45 s");
    expect(durationText(12 * 60_000)).toBe("12 min");
    expect(durationText(185 * 60_000)).toBe("3 h 5 min");
    expect(durationText(52 * 3600_000)).toBe("2 d 4 h");
  });
});

describe("learnQuietPeriod", () => {
  it("needs enough history, then takes 1.5 times the longest gap, at least an hour", () => {
    const hour = 3600_000;
    expect(learnQuietPeriod(Array.from({ length: 19 }, (_, i) => i * hour))).toBeNull();
    const pages = Array.from({ length: 30 }, (_, i) => i * hour);
    pages.push(29 * hour + 10 * hour); // a ten-hour gap
    expect(learnQuietPeriod(pages.reverse())).toBe(15 * 3600);
    expect(learnQuietPeriod(Array.from({ length: 30 }, (_, i) => i * 60_000))).toBe(3600);
  });
});

describe("receiverHealth", () => {
  const CFA = 1;
  const SES = 2;
  it("a down receiver is critical when it is the only one up for an agency, else a warning", () => {
    const health = receiverHealth(
      [
        { id: 1, name: "A", state: "down", agencyIds: [CFA, SES] },
        { id: 2, name: "B", state: "ok", agencyIds: [CFA] },
      ],
      (id) => (id === CFA ? "CFA" : "SES"),
    );
    expect(health.issues).toEqual(["Receiver A is down and is the only receiver for SES"]);
    expect(health.warnings).toEqual([]);

    const covered = receiverHealth([
      { id: 1, name: "A", state: "down", agencyIds: [CFA] },
      { id: 2, name: "B", state: "quiet", agencyIds: [CFA] },
    ]);
    expect(covered.issues).toEqual([]);
    expect(covered.warnings).toEqual(["Receiver A is down", "Receiver B has heard no page for too long"]);
  });

  it("two down receivers of one agency are both critical; late is a warning; unknown and ok say nothing", () => {
    const health = receiverHealth([
      { id: 1, name: "A", state: "down", agencyIds: [CFA] },
      { id: 2, name: "B", state: "down", agencyIds: [CFA] },
      { id: 3, name: "C", state: "late", agencyIds: [CFA] },
      { id: 4, name: "D", state: "unknown", agencyIds: [CFA] },
      { id: 5, name: "E", state: "ok", agencyIds: [SES] },
    ]);
    expect(health.issues).toHaveLength(2);
    expect(health.warnings).toEqual(["Receiver C is late"]);
  });

  it("a down receiver expected to hear no agency in particular is a warning", () => {
    expect(receiverHealth([{ id: 1, name: "A", state: "down", agencyIds: [] }])).toEqual({
      issues: [],
      warnings: ["Receiver A is down"],
    });
  });
});
