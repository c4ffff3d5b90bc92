import { describe, expect, it } from "vitest";
import {
  classifyLocationQuery,
  isDuplicatePhoneReply,
  isRegistrationComplete,
  registrationSchema,
} from "./registration.js";

describe("isDuplicatePhoneReply", () => {
  it("spots 'already exists' and 'user with this phone number', ignoring case", () => {
    expect(isDuplicatePhoneReply("An account already exists for this number")).toBe(true);
    expect(isDuplicatePhoneReply("A User With This Phone Number is registered")).toBe(true);
  });

  it("is false for other or missing replies", () => {
    expect(isDuplicatePhoneReply("Registration failed")).toBe(false);
    expect(isDuplicatePhoneReply(null)).toBe(false);
    expect(isDuplicatePhoneReply("")).toBe(false);
  });
});

describe("registrationSchema", () => {
  const body = {
    first_name: " Sam ",
    last_name: "Citizen",
    phone: "0412 345 678",
    user_agency: "CFA",
    postcode: "3550",
    town_name: "Bendigo",
    state_name: "vic",
  };

  it("accepts a complete registration and normalises phone and state", () => {
    expect(registrationSchema.parse(body)).toEqual({
      ...body,
      first_name: "Sam",
      phone: "+61412345678",
      state_name: "VIC",
    });
  });

  it("requires non-blank names and town", () => {
    expect(registrationSchema.safeParse({ ...body, first_name: "  " }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, last_name: "" }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, town_name: " " }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, first_name: "x".repeat(101) }).success).toBe(false);
  });

  it("rejects an implausible phone", () => {
    expect(registrationSchema.safeParse({ ...body, phone: "041234" }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, phone: "" }).success).toBe(false);
  });

  it("only accepts the sign-up agencies", () => {
    for (const code of ["FRV", "CFA", "SES", "Other"]) {
      expect(registrationSchema.safeParse({ ...body, user_agency: code }).success).toBe(true);
    }
    expect(registrationSchema.safeParse({ ...body, user_agency: "RFS" }).success).toBe(false);
  });

  it("needs a 4-digit postcode", () => {
    expect(registrationSchema.safeParse({ ...body, postcode: "355" }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, postcode: "35500" }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, postcode: "35a0" }).success).toBe(false);
  });

  it("needs a known state abbreviation", () => {
    expect(registrationSchema.safeParse({ ...body, state_name: "Victoria" }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...body, state_name: "ACT" }).success).toBe(true);
  });
});

describe("isRegistrationComplete", () => {
  const form = {
    first_name: "Sam",
    last_name: "Citizen",
    phone: "0412345678",
    user_agency: "SES",
    postcode: "3550",
    town_name: "Bendigo",
  };

  it("enables submit when every required field is filled", () => {
    expect(isRegistrationComplete(form)).toBe(true);
  });

  it("disables submit while any required field is blank", () => {
    for (const field of Object.keys(form)) {
      expect(isRegistrationComplete({ ...form, [field]: " " })).toBe(false);
      expect(isRegistrationComplete({ ...form, [field]: undefined })).toBe(false);
    }
  });
});

describe("classifyLocationQuery", () => {
  it("does nothing under 2 characters", () => {
    expect(classifyLocationQuery("")).toEqual({ kind: "none" });
    expect(classifyLocationQuery(" 3 ")).toEqual({ kind: "none" });
    expect(classifyLocationQuery("B")).toEqual({ kind: "none" });
  });

  it("looks up a purely numeric value only at exactly 4 digits", () => {
    expect(classifyLocationQuery("35")).toEqual({ kind: "none" });
    expect(classifyLocationQuery("355")).toEqual({ kind: "none" });
    expect(classifyLocationQuery(" 3550 ")).toEqual({ kind: "postcode", postcode: "3550" });
    expect(classifyLocationQuery("35501")).toEqual({ kind: "none" });
  });

  it("searches text only at 3 or more characters", () => {
    expect(classifyLocationQuery("Be")).toEqual({ kind: "none" });
    expect(classifyLocationQuery("Ben")).toEqual({ kind: "text", text: "Ben" });
    expect(classifyLocationQuery(" Golden Square ")).toEqual({ kind: "text", text: "Golden Square" });
  });
});
