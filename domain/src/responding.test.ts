import { describe, expect, it } from "vitest";
import {
  answerTime,
  DEFAULT_RESPONSE_WINDOW_HOURS,
  describeResponseCounts,
  etaLabel,
  isResponseOpen,
  jobAnswerability,
  NOT_ANSWERABLE,
  pageAnswerability,
  responseClosesAt,
} from "./responding.js";

const start = new Date("2026-11-23T10:00:00.000Z");
const hours = (n: number) => n * 3_600_000;

describe("responding", () => {
  it("closes answers the configured number of hours after the first page", () => {
    expect(responseClosesAt(start, 12).toISOString()).toBe("2026-11-23T22:00:00.000Z");
    expect(isResponseOpen(start, start.getTime() + hours(12) - 1, 12)).toBe(true);
    expect(isResponseOpen(start, start.getTime() + hours(12), 12)).toBe(false);
    expect(isResponseOpen(start, new Date(start.getTime() + hours(2)), 1)).toBe(false);
    expect(DEFAULT_RESPONSE_WINDOW_HOURS).toBe(12);
  });

  it("takes answers for every page with a job number, and emergencies without one", () => {
    for (const type of ["emergency", "non-emergency", "standard"])
      expect(pageAnswerability({ type, job_number: "S261127080" })).toEqual({ answerable: true });
    expect(pageAnswerability({ type: "emergency", job_number: null })).toEqual({ answerable: true });
    expect(pageAnswerability({ type: "standard", job_number: null })).toEqual({
      answerable: false,
      reason: NOT_ANSWERABLE.noJob,
    });
  });

  it("never takes answers for administrative or machine pages, job number or not", () => {
    expect(pageAnswerability({ type: "administrative", job_number: "F251108123" })).toEqual({
      answerable: false,
      reason: NOT_ANSWERABLE.administrative,
    });
    expect(pageAnswerability({ type: "emergency", job_number: "F251108123", is_machine: true })).toEqual({
      answerable: false,
      reason: NOT_ANSWERABLE.machine,
    });
  });

  it("answers a job when any of its pages can be answered", () => {
    const update = { type: "administrative", job_number: "F251108123" };
    expect(jobAnswerability([update, { type: "non-emergency", job_number: "F251108123" }])).toEqual({
      answerable: true,
    });
    expect(jobAnswerability([update])).toEqual({ answerable: false, reason: NOT_ANSWERABLE.administrative });
    expect(jobAnswerability([])).toEqual({ answerable: false, reason: NOT_ANSWERABLE.noJob });
  });

  it("describes the counts as members read them", () => {
    expect(describeResponseCounts({ responding: 4, not_available: 1 })).toBe("4 responding, 1 not available");
    expect(describeResponseCounts({ responding: 2, not_available: 0 })).toBe("2 responding");
    expect(describeResponseCounts({ responding: 0, not_available: 3 })).toBe("3 not available");
    expect(describeResponseCounts({ responding: 0, not_available: 0 })).toBe("No answers yet");
  });

  it("labels the ETA choices, the last one open-ended", () => {
    expect([5, 10, 15].map((m) => etaLabel(m as 5 | 10 | 15))).toEqual(["5 min", "10 min", "15+ min"]);
  });

  it("keeps an offline answer's time, within the job's first page and now", () => {
    const now = new Date(start.getTime() + hours(1));
    const offline = new Date(start.getTime() + 600_000);
    expect(answerTime(offline, start, now)).toEqual(offline);
    expect(answerTime(undefined, start, now)).toEqual(now);
    expect(answerTime(new Date(start.getTime() - 1000), start, now)).toEqual(start);
    expect(answerTime(new Date(now.getTime() + 60_000), start, now)).toEqual(now);
    expect(answerTime(new Date(Number.NaN), start, now)).toEqual(now);
  });
});
