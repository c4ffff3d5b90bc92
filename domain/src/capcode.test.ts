import { describe, expect, it } from "vitest";
import { capcodeSchema, normalizeCapcode } from "./capcode.js";

describe("capcodes", () => {
  it("zero-pads shorter capcodes to 7 digits and keeps longer ones", () => {
    expect(normalizeCapcode("12345")).toBe("0012345");
    expect(normalizeCapcode("1234567")).toBe("1234567");
    expect(normalizeCapcode("001234567")).toBe("001234567");
  });

  it("accepts digits as text or a number, and refuses anything else", () => {
    expect(capcodeSchema.parse(" 4242 ")).toBe("0004242");
    expect(capcodeSchema.parse(4242)).toBe("0004242");
    for (const bad of ["", "12a4", "12345678901", -1, 1.5, null]) {
      expect(capcodeSchema.safeParse(bad).success, String(bad)).toBe(false);
    }
  });
});
