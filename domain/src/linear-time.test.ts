import { describe, expect, it } from "vitest";
import * as domain from "./index.js";

// The high-resolution clock of Node and browsers alike (domain compiles with no platform types).
declare const performance: { now(): number };

/**
 * Every function domain exports that takes text (it answers a short string without throwing) is timed
 * on adversarial texts: long runs of blanks, digits and letters, the kinds that make a backtracking
 * regular expression or a repeated scan super-linear (issue 28: `/\s+$/` took 30 s on 80,000 spaces).
 * Work linear in the text grows 8x when the text does; the test fails past 32x (quadratic is 64x),
 * and only when the long text takes long enough to measure. A helper added later is covered unasked.
 */

/** Exports that take no text, by design: a record of filter states. */
const NOT_TEXT = new Set(["toBulkFilters"]);

const SHORT = 4000;
const LONG = 8 * SHORT;
/** Below this the long run is too quick to judge by its growth: it cannot stall anything. */
const FLOOR_MS = 5;

const adversarial: Record<string, (n: number) => string> = {
  "blanks then a letter": (n) => `${" ".repeat(n)}x`,
  "digits then a letter": (n) => `${"1".repeat(n)}x`,
  "letters then a mark": (n) => `${"a".repeat(n)}!`,
  "capitals and digits": (n) => "A1".repeat(n / 2),
  "words and blanks": (n) => "ab ".repeat(n / 3),
  "tabs and line breaks": (n) => "\t\n".repeat(n / 2),
  "a prefix then blanks": (n) => `@@${" ".repeat(n)}F`,
  "job-number letters": (n) => "F1".repeat(n / 2),
};

function best(run: () => void, times = 3): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

const textHelpers = Object.entries(domain).filter(([name, value]) => {
  if (typeof value !== "function" || NOT_TEXT.has(name)) return false;
  try {
    (value as (s: string) => unknown)("test text");
    return true;
  } catch {
    return false;
  }
}) as [string, (s: string) => unknown][];

describe("text helpers on adversarial input", () => {
  it("finds the text helpers to time", () => {
    const names = textHelpers.map(([name]) => name);
    expect(names).toEqual(
      expect.arrayContaining([
        "storablePagerText",
        "displayText",
        "extractJobNumber",
        "extractAddress",
        "normalizePhone",
        "parseSearchTerms",
        "oversizedRepetition",
      ]),
    );
  });

  it("does work linear in the text for every helper and every kind of run", () => {
    const superLinear: string[] = [];
    for (const [name, helper] of textHelpers) {
      for (const [kind, make] of Object.entries(adversarial)) {
        const short = make(SHORT);
        const long = make(LONG);
        const call = (text: string) => () => {
          try {
            helper(text);
          } catch {
            // a refusal is an answer too: its time is what is measured
          }
        };
        call(short)(); // warm
        const longMs = best(call(long));
        if (longMs < FLOOR_MS) continue;
        const shortMs = Math.max(best(call(short)), 0.05);
        if (longMs / shortMs > 32) {
          superLinear.push(
            `${name} on ${kind}: ${shortMs.toFixed(2)} ms at ${SHORT}, ${longMs.toFixed(1)} ms at ${LONG}`,
          );
        }
      }
    }
    expect(superLinear).toEqual([]);
  }, 60_000);
});
