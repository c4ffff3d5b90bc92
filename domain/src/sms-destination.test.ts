import { describe, expect, it } from "vitest";
import { normalizePhone } from "./phone.js";
import {
  checkSmsDestination,
  DEFAULT_SMS_COUNTRIES,
  describeSmsCountries,
  isKnownCountry,
  smsPrefixOf,
} from "./sms-destination.js";

describe("checkSmsDestination", () => {
  it("accepts Australian mobiles however they were typed", () => {
    for (const typed of ["0412 345 678", "+61 412 345 678", "61412345678", "0411.000.009"]) {
      const checked = checkSmsDestination(normalizePhone(typed));
      expect(checked, typed).toMatchObject({ ok: true, country: "AU" });
    }
  });

  it("refuses satellite, international-network and premium-rate numbers", () => {
    for (const phone of ["+881612345678", "+8821234567890", "+979123456789", "+80012345678"]) {
      const checked = checkSmsDestination(phone);
      expect(checked.ok, phone).toBe(false);
      if (!checked.ok) expect(checked.message).toContain("Australian mobile numbers");
    }
    expect(checkSmsDestination("+881612345678")).toMatchObject({ reason: "non_geographic" });
  });

  it("refuses other countries unless they are listed, and landlines anywhere", () => {
    expect(checkSmsDestination("+2693212345")).toMatchObject({ ok: false, reason: "country_not_allowed" });
    expect(checkSmsDestination("+6421123456")).toMatchObject({ ok: false, reason: "country_not_allowed" });
    expect(checkSmsDestination("+6421123456", ["AU", "NZ"])).toMatchObject({ ok: true, country: "NZ" });
    expect(checkSmsDestination("+61299998888")).toMatchObject({ ok: false, reason: "not_mobile" });
    expect(checkSmsDestination("+61190012345")).toMatchObject({ ok: false, reason: "invalid" });
    expect(checkSmsDestination("+6141234567")).toMatchObject({ ok: false, reason: "invalid" });
    expect(checkSmsDestination("not a number")).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("takes US numbers, which cannot be told from landlines, only when the US is listed", () => {
    expect(checkSmsDestination("+14155550123").ok).toBe(false);
    expect(checkSmsDestination("+12015550123", ["US"])).toMatchObject({ ok: true, country: "US" });
  });

  it("names the allowed countries in its message", () => {
    expect(describeSmsCountries(DEFAULT_SMS_COUNTRIES)).toBe("Australian mobile numbers");
    expect(describeSmsCountries(["AU", "NZ"])).toBe("mobile numbers in Australia and New Zealand");
  });
});

describe("isKnownCountry", () => {
  it("knows ISO country codes libphonenumber has plans for", () => {
    expect(isKnownCountry("AU")).toBe(true);
    expect(isKnownCountry("NZ")).toBe(true);
    expect(isKnownCountry("XX")).toBe(false);
    expect(isKnownCountry("au")).toBe(false);
  });
});

describe("smsPrefixOf", () => {
  it("is the number without its last four digits", () => {
    expect(smsPrefixOf("+61412345678")).toBe("+6141234");
    expect(smsPrefixOf("+61412349999")).toBe(smsPrefixOf("+61412340000"));
  });
});
