import { describe, expect, it } from "vitest";
import { codeInputSchema, deviceInfoSchema, phoneInputSchema } from "./request-inputs.js";

describe("phoneInputSchema", () => {
  it("normalises a valid number", () => {
    expect(phoneInputSchema.parse(" 0412 345 678 ")).toBe("+61412345678");
  });
  it("rejects blank, implausible and over-long input with a clear message", () => {
    expect(phoneInputSchema.safeParse("   ").error?.issues[0]?.message).toBe("Phone number is required");
    expect(phoneInputSchema.safeParse("12").error?.issues[0]?.message).toBe(
      "Please enter a valid phone number",
    );
    expect(phoneInputSchema.safeParse("1".repeat(40)).success).toBe(false);
    expect(phoneInputSchema.safeParse(412345678).success).toBe(false);
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

describe("deviceInfoSchema", () => {
  const info = {
    deviceId: "a1b2c3",
    device: "Mobile",
    browser: "Safari",
    os: "iOS",
    screenResolution: "390x844",
    timezone: "Australia/Melbourne",
    language: "en-AU",
    platform: "iPhone",
  };

  it("accepts the device info the web app sends", () => {
    expect(deviceInfoSchema.parse(info)).toEqual(info);
  });

  it("rejects a missing or overlong device id and overlong fields", () => {
    expect(deviceInfoSchema.safeParse({ ...info, deviceId: "" }).success).toBe(false);
    expect(deviceInfoSchema.safeParse({ ...info, deviceId: "x".repeat(129) }).success).toBe(false);
    expect(deviceInfoSchema.safeParse({ ...info, deviceId: "x".repeat(128) }).success).toBe(true);
    expect(deviceInfoSchema.safeParse({ ...info, browser: "x".repeat(201) }).success).toBe(false);
    const { os: _os, ...withoutOs } = info;
    expect(deviceInfoSchema.safeParse(withoutOs).success).toBe(false);
  });
});
