import { describe, expect, it } from "vitest";
import { PAGER_CLOCK_SKEW_MS, PAGER_SPOOL_MAX_AGE_MS, pagerTime } from "./pager-time.js";

const RECEIVED = new Date("2026-11-22T03:05:00.000Z");
const at = (offsetMs: number) => new Date(RECEIVED.getTime() + offsetMs);

describe("pagerTime", () => {
  it("shows the pager's time for a page replayed from the spool hours later", () => {
    expect(pagerTime(at(-5 * 3_600_000), RECEIVED)).toEqual(at(-5 * 3_600_000));
  });

  it("keeps a page as old as the spool can hold, and no older", () => {
    expect(pagerTime(at(-PAGER_SPOOL_MAX_AGE_MS), RECEIVED)).toEqual(at(-PAGER_SPOOL_MAX_AGE_MS));
    expect(pagerTime(at(-PAGER_SPOOL_MAX_AGE_MS - 1), RECEIVED)).toEqual(RECEIVED);
    expect(pagerTime(new Date(0), RECEIVED)).toEqual(RECEIVED);
  });

  it("shows the receipt time for a pager time in the future beyond the clock skew", () => {
    expect(pagerTime(at(PAGER_CLOCK_SKEW_MS + 1), RECEIVED)).toEqual(RECEIVED);
    expect(pagerTime(at(3 * 3_600_000), RECEIVED)).toEqual(RECEIVED);
  });

  it("takes a receiver clock slightly ahead as the receipt time, never a time after it", () => {
    expect(pagerTime(at(PAGER_CLOCK_SKEW_MS), RECEIVED)).toEqual(RECEIVED);
    expect(pagerTime(at(1_000), RECEIVED)).toEqual(RECEIVED);
  });

  it("shows the receipt time when the pager gave no time or an invalid one", () => {
    expect(pagerTime(null, RECEIVED)).toEqual(RECEIVED);
    expect(pagerTime(undefined, RECEIVED)).toEqual(RECEIVED);
    expect(pagerTime(new Date(Number.NaN), RECEIVED)).toEqual(RECEIVED);
  });
});
