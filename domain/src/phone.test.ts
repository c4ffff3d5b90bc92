import { describe, expect, it } from "vitest";
import { isPlausibleAuPhone, maskPhone, normalizePhone, validateLoginPhone } from "./phone.js";

describe("normalizePhone", () => {
  it("strips everything except digits and plus", () => {
    expect(normalizePhone(" (04) 1234-5678 ")).toBe("+61412345678");
    expect(normalizePhone("+61 412 345 678")).toBe("+61412345678");
  });

  it("keeps a leading +61", () => {
    expect(normalizePhone("+61412345678")).toBe("+61412345678");
  });

  it("adds a plus to a leading 61", () => {
    expect(normalizePhone("61412345678")).toBe("+61412345678");
  });

  it("normalises a leading 0 to +61", () => {
    expect(normalizePhone("0412345678")).toBe("+61412345678");
    expect(normalizePhone("0398765432")).toBe("+61398765432");
  });

  it("puts +61 in front of a 10-digit number starting with 4", () => {
    expect(normalizePhone("4123456789")).toBe("+614123456789");
  });

  it("puts +61 in front of an 8-digit number starting with 4", () => {
    expect(normalizePhone("41234567")).toBe("+6141234567");
  });

  it("gives a 9-digit number starting with 4 only a plus, as the spec's last branch says", () => {
    expect(normalizePhone("412345678")).toBe("+412345678");
  });

  it("keeps any other number starting with plus", () => {
    expect(normalizePhone("+44 20 7946 0958")).toBe("+442079460958");
  });

  it("puts a plus in front of anything else", () => {
    expect(normalizePhone("12345678")).toBe("+12345678");
    expect(normalizePhone("5123456789")).toBe("+5123456789");
  });

  it("applies the +61 rule before the leading-61 rule and the 61 rule before the 0 rule", () => {
    expect(normalizePhone("+610412")).toBe("+610412");
    expect(normalizePhone("610412")).toBe("+610412");
  });

  it("returns an empty string when there are no digits", () => {
    expect(normalizePhone("")).toBe("");
    expect(normalizePhone("abc +")).toBe("");
  });
});

describe("validateLoginPhone", () => {
  it("requires a non-blank phone", () => {
    expect(validateLoginPhone("")).toEqual({ ok: false, message: "Phone number is required" });
    expect(validateLoginPhone("   ")).toEqual({ ok: false, message: "Phone number is required" });
  });

  it("returns the normalised phone", () => {
    expect(validateLoginPhone(" 0412 345 678 ")).toEqual({ ok: true, phone: "+61412345678" });
  });

  it("rejects input with no digits at all", () => {
    expect(validateLoginPhone("phone").ok).toBe(false);
  });
});

describe("isPlausibleAuPhone", () => {
  it("accepts an Australian number with 9 digits after +61", () => {
    expect(isPlausibleAuPhone("+61412345678")).toBe(true);
  });

  it("rejects Australian numbers with too few or too many digits", () => {
    expect(isPlausibleAuPhone("+6141234567")).toBe(false);
    expect(isPlausibleAuPhone("+614123456789")).toBe(false);
  });

  it("accepts other countries with 8 to 15 digits", () => {
    expect(isPlausibleAuPhone("+12345678")).toBe(true);
    expect(isPlausibleAuPhone("+123456789012345")).toBe(true);
  });

  it("rejects fewer than 8 or more than 15 digits, no plus, or other characters", () => {
    expect(isPlausibleAuPhone("+1234567")).toBe(false);
    expect(isPlausibleAuPhone("+1234567890123456")).toBe(false);
    expect(isPlausibleAuPhone("0412345678")).toBe(false);
    expect(isPlausibleAuPhone("+61412+45678")).toBe(false);
    expect(isPlausibleAuPhone("")).toBe(false);
  });
});

describe("maskPhone", () => {
  it("keeps +61, the first digit and the last three digits", () => {
    expect(maskPhone("+61412345678")).toBe("+614•••••678");
  });

  it("never shows a whole foreign number", () => {
    const masked = maskPhone("+442079460958");
    expect(masked).toBe("+44•••••••958");
    expect(masked).not.toContain("2079460");
  });

  it("masks short values completely", () => {
    expect(maskPhone("+12345")).toBe("+•••••");
    expect(maskPhone("")).toBe("");
  });
});
