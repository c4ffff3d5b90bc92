import { describe, expect, it } from "vitest";
import { findUnstorableText, hasUnstorableText } from "./storable-text.js";

describe("hasUnstorableText", () => {
  it("refuses the NUL character anywhere", () => {
    expect(hasUnstorableText("\u0000")).toBe(true);
    expect(hasUnstorableText("FIRE\u0000 AT 1 MAIN ST")).toBe(true);
  });

  it("refuses a high or low surrogate standing alone, at either end or inside", () => {
    expect(hasUnstorableText("\ud800")).toBe(true);
    expect(hasUnstorableText("a\udc00b")).toBe(true);
    expect(hasUnstorableText("\ud83d")).toBe(true);
    expect(hasUnstorableText("x\ude00")).toBe(true);
    expect(hasUnstorableText("\ude00\ud83d")).toBe(true);
  });

  it("accepts paired surrogates (emoji), other control characters and plain text", () => {
    expect(hasUnstorableText("\ud83d\ude00 smile")).toBe(false);
    expect(hasUnstorableText("bell \u0007 escape \u001b tab\t")).toBe(false);
    expect(hasUnstorableText("@@ALERT F251108123 STRUC1")).toBe(false);
    expect(hasUnstorableText("")).toBe(false);
  });
});

describe("findUnstorableText", () => {
  it("names the path of the first unstorable string in nested input", () => {
    expect(findUnstorableText({ a: [1, { b: "ok" }, { c: "x\u0000" }] }, "body")).toBe("body.a.2.c");
    expect(findUnstorableText(["\ud800"], "query")).toBe("query.0");
  });

  it("checks object keys as well as values", () => {
    expect(findUnstorableText({ "k\u0000": 1 }, "body")).toBe("body");
  });

  it("answers null for storable input of any shape", () => {
    expect(findUnstorableText({ a: [1, true, null, { b: "\ud83d\ude00" }] }, "body")).toBeNull();
    expect(findUnstorableText("plain", "body")).toBeNull();
    expect(findUnstorableText(undefined, "body")).toBeNull();
  });

  it("walks input nested far deeper than a call stack could", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnstorableText(deep, "body")).toMatch(/^body(\.0)+$/);
  });
});
