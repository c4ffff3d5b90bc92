import { describe, expect, it } from "vitest";
import {
  canSubmitActivationCode,
  canSubmitLoginCode,
  extractCodeInput,
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

describe("extractCodeInput", () => {
  it("reads the code out of a whole sign-in SMS, not the expiry minutes after it", () => {
    expect(
      extractCodeInput("Turnout: your sign-in code is 708546. It expires in 5 minutes. Never share it."),
    ).toBe("708546");
  });

  it("reads the code out of a whole activation SMS", () => {
    expect(extractCodeInput("Turnout: your activation code is 123456. It expires in 10 minutes.")).toBe(
      "123456",
    );
  });

  it("prefers the 6-digit run over digits that come before it", () => {
    expect(extractCodeInput("Turnout 2: call 000 if urgent; code 708546, valid 5 min")).toBe("708546");
  });

  it("does not take 6 digits out of a longer number", () => {
    expect(extractCodeInput("ref 12345678 code 654321")).toBe("654321");
  });

  it("keeps typed input as before: digits only, at most 6", () => {
    expect(extractCodeInput("12a-3 4")).toBe("1234");
    expect(extractCodeInput("1234567")).toBe("123456");
    expect(extractCodeInput("123456")).toBe("123456");
    expect(extractCodeInput("abc")).toBe("");
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
