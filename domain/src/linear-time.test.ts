import { describe, expect, it } from "vitest";
import * as domain from "./index.js";
import { superLinearHelpers } from "./testing/linear-time.js";

/**
 * Every function domain exports that takes text (it answers a short string without throwing) is timed
 * on adversarial texts (testing/linear-time.ts). A helper added later is covered unasked.
 */

/**
 * Exports that take no text, by design: a record of filter states, alarm settings (given a string,
 * the spread copies each character as a property, which is not text work).
 */
const NOT_TEXT = new Set(["toBulkFilters", "muteAlarm"]);

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
    expect(superLinearHelpers(textHelpers)).toEqual([]);
  }, 60_000);

  it("reports a helper whose work grows with the square of the text", () => {
    // Reads the rest of the text from every eighth character: quadratic, ~100 ms at 32,000 characters.
    const quadratic = (text: string) => {
      let found = 0;
      for (let i = 0; i < text.length; i += 8)
        for (let j = i; j < text.length; j++) if (text.charCodeAt(j) === 0) found++;
      return found;
    };
    const letters = { letters: (n: number) => "ab".repeat(n / 2) };
    expect(superLinearHelpers([["quadratic", quadratic]], letters)).toEqual([
      expect.stringMatching(/^quadratic on letters: /),
    ]);
  }, 60_000);
});
