import { describe, expect, it } from "vitest";
import {
  canSubmitActivationCode,
  canSubmitLoginCode,
  codeInputSchema,
  isWellFormedCode,
  sanitizeCodeInput,
} from "./otp.js";

describe("sanitizeCodeInput", () => {
  it("keeps digits only", () => {
    expect(sanitizeCodeInput("12a-3 4")).toBe("1234");
  });

  it("keeps at most 6 digits", () => {
    expect(sanitizeCodeInput("12345678")).toBe("123456");
  });

  it("returns empty for empty or digit-free input", () => {
    expect(sanitizeCodeInput("")).toBe("");
    expect(sanitizeCodeInput("abc")).toBe("");
  });
});

describe("canSubmitLoginCode", () => {
  it("is enabled for any non-empty code", () => {
    expect(canSubmitLoginCode("1")).toBe(true);
    expect(canSubmitLoginCode("123456")).toBe(true);
  });

  it("is disabled for an empty code", () => {
    expect(canSubmitLoginCode("")).toBe(false);
  });
});

describe("canSubmitActivationCode", () => {
  it("is enabled only at exactly 6 digits", () => {
    expect(canSubmitActivationCode("123456")).toBe(true);
    expect(canSubmitActivationCode("12345")).toBe(false);
    expect(canSubmitActivationCode("1234567")).toBe(false);
    expect(canSubmitActivationCode("")).toBe(false);
  });
});

describe("isWellFormedCode", () => {
  it("accepts exactly six ASCII digits", () => {
    expect(isWellFormedCode("000123")).toBe(true);
  });

  it("rejects non-strings, letters, spaces, other lengths and non-ASCII digits", () => {
    expect(isWellFormedCode(123456)).toBe(false);
    expect(isWellFormedCode(null)).toBe(false);
    expect(isWellFormedCode("12345a")).toBe(false);
    expect(isWellFormedCode(" 12345")).toBe(false);
    expect(isWellFormedCode("12345")).toBe(false);
    expect(isWellFormedCode("١٢٣٤٥٦")).toBe(false);
  });
});

describe("codeInputSchema", () => {
  it("accepts exactly six digits", () => {
    expect(codeInputSchema.parse("012345")).toBe("012345");
  });
  it("rejects 5 or 7 digits, letters and non-strings", () => {
    for (const bad of ["12345", "1234567", "12a456", 123456, ""]) {
      expect(codeInputSchema.safeParse(bad).success).toBe(false);
    }
  });
});
