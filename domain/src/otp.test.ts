import { describe, expect, it } from "vitest";
import { canSubmitActivationCode, canSubmitLoginCode, isWellFormedCode, sanitizeCodeInput } from "./otp.js";

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
