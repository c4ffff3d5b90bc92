import { describe, expect, it } from "vitest";
import {
  exceededSmsBudget,
  type SmsBudgetCounts,
  type SmsBudgetLimits,
  smsBudgetHealthIssue,
  smsBudgetMessage,
  underAttack,
} from "./abuse.js";

const limits: SmsBudgetLimits = {
  global_hour: 300,
  global_day: 2000,
  unauth_hour: 60,
  unauth_day: 240,
  prefix_hour: 10,
  phone_day: 10,
};
const counts = (over: Partial<SmsBudgetCounts> = {}): SmsBudgetCounts => ({
  global_hour: 1,
  global_day: 1,
  unauth_hour: 1,
  unauth_day: 1,
  prefix_hour: 1,
  phone_day: 1,
  ...over,
});

describe("exceededSmsBudget", () => {
  it("lets an SMS through while every count, this one included, is within its budget", () => {
    expect(exceededSmsBudget(counts(), limits)).toBeNull();
    expect(exceededSmsBudget(counts({ unauth_hour: 60, phone_day: 10 }), limits)).toBeNull();
  });

  it("names the widest budget the SMS would overrun", () => {
    expect(exceededSmsBudget(counts({ unauth_hour: 61 }), limits)).toBe("unauth_hour");
    expect(exceededSmsBudget(counts({ unauth_hour: 61, global_day: 2001 }), limits)).toBe("global_day");
    expect(exceededSmsBudget(counts({ phone_day: 11 }), limits)).toBe("phone_day");
    expect(exceededSmsBudget(counts({ prefix_hour: 11, phone_day: 11 }), limits)).toBe("prefix_hour");
  });
});

describe("budget texts", () => {
  it("tell a stranger when to come back and that a known device still signs in", () => {
    expect(smsBudgetMessage("unauth_hour", 1700)).toMatch(
      /paused.*try again in 29 minutes.*signed in on before/,
    );
    expect(smsBudgetMessage("phone_day", 60)).toMatch(/This number .* 1 minute\./);
    expect(smsBudgetHealthIssue("global_day")).toContain("daily SMS budget");
  });
});

describe("underAttack", () => {
  const thresholds = { phoneRequests: 3, phoneFailures: 5, serviceUnauthSms: 20, serviceFailures: 30 };
  const calm = {
    phoneRequests: 0,
    phoneFailures: 0,
    phoneGuarded: false,
    serviceUnauthSms: 0,
    serviceFailures: 0,
    serviceBudgetReached: false,
  };

  it("is calm below every threshold", () => {
    expect(underAttack({ ...calm, phoneRequests: 2, serviceUnauthSms: 19 }, thresholds)).toEqual({
      phone: false,
      service: false,
    });
  });

  it("puts a phone under attack by its requests, its wrong codes or its guard", () => {
    expect(underAttack({ ...calm, phoneRequests: 3 }, thresholds).phone).toBe(true);
    expect(underAttack({ ...calm, phoneFailures: 5 }, thresholds).phone).toBe(true);
    expect(underAttack({ ...calm, phoneGuarded: true }, thresholds)).toEqual({ phone: true, service: false });
  });

  it("puts the service under attack by its stranger SMS, its wrong codes or a budget reached", () => {
    expect(underAttack({ ...calm, serviceUnauthSms: 20 }, thresholds).service).toBe(true);
    expect(underAttack({ ...calm, serviceFailures: 30 }, thresholds).service).toBe(true);
    expect(underAttack({ ...calm, serviceBudgetReached: true }, thresholds)).toEqual({
      phone: false,
      service: true,
    });
  });
});
