import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import { orElse, orEmpty } from "./schema-helpers";

describe("orElse", () => {
  const count = orElse(z.number(), 0);

  it("reads a missing or null field as the fallback, and keeps a value", () => {
    expect(count.parse(undefined)).toBe(0);
    expect(count.parse(null)).toBe(0);
    expect(count.parse(7)).toBe(7);
    expect(orElse(z.string(), null).parse(undefined)).toBeNull();
  });

  it("still refuses a value of the wrong kind", () => {
    expect(count.safeParse("7").success).toBe(false);
  });
});

describe("orEmpty", () => {
  const names = orEmpty(z.array(z.string()));

  it("reads a missing or null list as empty, and keeps a list", () => {
    expect(names.parse(undefined)).toEqual([]);
    expect(names.parse(null)).toEqual([]);
    expect(names.parse(["a"])).toEqual(["a"]);
    expect(names.safeParse([1]).success).toBe(false);
  });

  it("gives a new list each time, so changing one reply's list cannot change another's", () => {
    const first = names.parse(null);
    first.push("changed");
    expect(names.parse(null)).toEqual([]);
  });
});
