import { describe, expect, it, vi } from "vitest";
import { formatClockTime, formatDateTime, formatRelativeTime, formatShortDate } from "./time.js";

const TZ = "Australia/Melbourne";
const NOW = Date.UTC(2026, 10, 22, 3, 5, 0); // 2:05 pm AEDT, 22 Nov 2026
const before = (ms: number) => NOW - ms;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe("formatRelativeTime", () => {
  it("says 'Just now' under a minute, and for future times", () => {
    expect(formatRelativeTime(NOW, NOW)).toBe("Just now");
    expect(formatRelativeTime(before(59_999), NOW)).toBe("Just now");
    expect(formatRelativeTime(NOW + 5 * MIN, NOW)).toBe("Just now");
  });

  it("counts minutes in the long form, singular and plural", () => {
    expect(formatRelativeTime(before(MIN), NOW)).toBe("1 minute ago");
    expect(formatRelativeTime(before(5 * MIN + 30_000), NOW)).toBe("5 minutes ago");
    expect(formatRelativeTime(before(HOUR - 1), NOW)).toBe("59 minutes ago");
  });

  it("counts hours and days in the long form", () => {
    expect(formatRelativeTime(before(HOUR), NOW)).toBe("1 hour ago");
    expect(formatRelativeTime(before(3 * HOUR), NOW)).toBe("3 hours ago");
    expect(formatRelativeTime(before(DAY), NOW)).toBe("1 day ago");
    expect(formatRelativeTime(before(2 * DAY), NOW)).toBe("2 days ago");
    expect(formatRelativeTime(before(30 * DAY), NOW)).toBe("30 days ago");
  });

  it("uses the short form on the alert card", () => {
    const short = { short: true, timeZone: TZ };
    expect(formatRelativeTime(before(30_000), NOW, short)).toBe("Just now");
    expect(formatRelativeTime(before(5 * MIN), NOW, short)).toBe("5m ago");
    expect(formatRelativeTime(before(3 * HOUR), NOW, short)).toBe("3h ago");
    expect(formatRelativeTime(before(2 * DAY), NOW, short)).toBe("2d ago");
    expect(formatRelativeTime(before(7 * DAY - 1), NOW, short)).toBe("6d ago");
  });

  it("shows an absolute date in the short form from 7 days on", () => {
    expect(formatRelativeTime(before(7 * DAY), NOW, { short: true, timeZone: TZ })).toBe("15 Nov 2026");
    expect(formatRelativeTime("2026-01-01T12:00:00Z", NOW, { short: true, timeZone: TZ })).toBe("1 Jan 2026");
  });

  it("accepts ISO strings and Date objects", () => {
    expect(formatRelativeTime(new Date(before(2 * HOUR)), new Date(NOW))).toBe("2 hours ago");
    expect(formatRelativeTime(new Date(before(2 * HOUR)).toISOString(), NOW)).toBe("2 hours ago");
  });

  it("returns an empty string for an invalid date", () => {
    expect(formatRelativeTime("not a date", NOW)).toBe("");
  });
});

describe("formatShortDate", () => {
  it("uses the calendar day of the given time zone", () => {
    const lateUtc = "2026-11-14T20:00:00Z";
    expect(formatShortDate(lateUtc, TZ)).toBe("15 Nov 2026");
    expect(formatShortDate(lateUtc, "UTC")).toBe("14 Nov 2026");
  });
});

describe("formatDateTime", () => {
  it("formats en-AU 'time, date' in the given time zone", () => {
    expect(formatDateTime(NOW, TZ)).toBe("2:05 pm, 22/11/2026");
  });

  it("shows midnight as 12 am and noon as 12 pm, zero-padding day and month", () => {
    expect(formatDateTime("2026-03-04T13:00:00Z", TZ)).toBe("12:00 am, 05/03/2026");
    expect(formatDateTime("2026-07-01T02:30:00Z", TZ)).toBe("12:30 pm, 01/07/2026");
  });

  it("returns an empty string for an invalid date", () => {
    expect(formatDateTime("nope", TZ)).toBe("");
  });
});

describe("the runtime's time zone", () => {
  // Node applies a change of TZ at once; the runtime's zone is then read from Date's local fields.
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;

  it("formats as Intl does in that zone named, across daylight saving changes", () => {
    expect(env).toBeDefined();
    const saved = env?.TZ;
    // Gathered and compared once: an expect per point made the test take seconds on a busy machine.
    const differences: string[] = [];
    let compared = 0;
    let changes = 0;
    try {
      for (const zone of [
        "Australia/Melbourne",
        "Australia/Perth",
        "Australia/Lord_Howe",
        "America/New_York",
      ]) {
        if (env) env.TZ = zone;
        // Every 131 minutes over a year and a bit (every hour of the day in turn), and every 7 minutes
        // across each of the zone's changes (where the offset differs between two such points).
        const check = (at: number) => {
          compared += 1;
          for (const [local, named] of [
            [formatDateTime(at), formatDateTime(at, zone)],
            [formatClockTime(at), formatClockTime(at, zone)],
          ])
            if (local !== named)
              differences.push(`${zone} ${new Date(at).toISOString()}: ${local} != ${named}`);
        };
        const step = 131 * MIN;
        for (let at = Date.UTC(2026, 0, 1); at < Date.UTC(2027, 2, 1); at += step) {
          check(at);
          if (new Date(at).getTimezoneOffset() !== new Date(at + step).getTimezoneOffset()) {
            changes += 1;
            for (let near = at + 7 * MIN; near < at + step; near += 7 * MIN) check(near);
          }
        }
      }
    } finally {
      if (env) env.TZ = saved;
      if (env && saved === undefined) delete env.TZ;
    }
    expect(differences.slice(0, 10)).toEqual([]);
    // Two changes in 2026 for each of Melbourne, Lord Howe and New York; Perth has none.
    expect(changes).toBe(6);
    expect(compared).toBeGreaterThan(4 * 4_500);
  });

  it("makes no Intl formatter for it, and one per named zone, reused", async () => {
    const Original = Intl.DateTimeFormat;
    let made = 0;
    Intl.DateTimeFormat = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        made += 1;
      }
    } as typeof Original;
    try {
      vi.resetModules();
      const time = await import("./time.js");
      time.formatDateTime("2026-11-28T03:00:00Z");
      time.formatShortDate("2026-11-28T03:00:00Z");
      time.formatClockTime("2026-11-28T03:00:00Z");
      time.formatRelativeTime("2026-10-28T03:00:00Z", NOW, { short: true });
      expect(made).toBe(0);
      time.formatDateTime("2026-11-28T03:00:00Z", TZ);
      time.formatShortDate("2026-11-28T03:00:00Z", TZ);
      time.formatClockTime("2026-11-28T03:00:00Z", TZ);
      expect(made).toBe(1);
    } finally {
      Intl.DateTimeFormat = Original;
    }
  });
});

describe("formatClockTime", () => {
  it("formats en-AU 'h:mm am/pm' in the given time zone", () => {
    expect(formatClockTime(NOW, TZ)).toBe("2:05 pm");
    expect(formatClockTime("2026-03-04T13:00:00Z", TZ)).toBe("12:00 am");
    expect(formatClockTime("2026-07-01T02:30:00Z", TZ)).toBe("12:30 pm");
    expect(formatClockTime("nope", TZ)).toBe("");
  });
});
