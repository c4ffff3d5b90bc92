import { describe, expect, it } from "vitest";
import { GROUPING_PATTERN_LIMITS, oversizedRepetition, worstCasePages } from "./grouping-pattern.js";

describe("oversizedRepetition", () => {
  it("finds a counted repetition over the cap, as written", () => {
    expect(oversizedRepetition(".{0,1000}.{0,1000}X")).toBe("{0,1000}");
    expect(oversizedRepetition("a{101}")).toBe("{101}");
    expect(oversizedRepetition("a{5,}b{200,}")).toBe("{200,}");
    expect(oversizedRepetition("(?:.{0,100}){1,10}X")).toBeNull();
  });

  it("passes counts up to the cap, and braces that are text", () => {
    expect(oversizedRepetition("\\bF\\d{9}\\b")).toBeNull();
    expect(oversizedRepetition(`x{${GROUPING_PATTERN_LIMITS.maxRepeat}}`)).toBeNull();
    expect(oversizedRepetition("\\{5000\\}")).toBeNull();
    expect(oversizedRepetition("[{5000}]x")).toBeNull();
    expect(oversizedRepetition("[]{5000}]x")).toBeNull();
    expect(oversizedRepetition("a{x,5000}")).toBeNull();
  });
});

describe("worstCasePages", () => {
  it("gives pages of the stated length: blanks, digits, letters and the pattern's own characters", () => {
    const pages = worstCasePages("INC-(\\d+)X", 2000);
    expect(pages.every((p) => p.length === 2000)).toBe(true);
    expect(pages).toContain(" ".repeat(2000));
    expect(pages).toContain("1".repeat(2000));
    expect(pages).toContain("X".repeat(2000));
    expect(pages).toContain("-".repeat(2000));
    expect(pages.some((p) => p.startsWith("INC-X"))).toBe(true);
    expect(new Set(pages).size).toBe(pages.length);
  });
});
