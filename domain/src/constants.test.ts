import { describe, expect, it } from "vitest";
import {
  INSTALL_REMIND_LATER_MS,
  MONITOR_STAGGER_MS,
  SIGNUP_AGENCIES,
  SIGNUP_AGENCY_CODES,
  STORAGE_KEYS,
  STORAGE_PREFIX,
  UNMAPPED_AGENCY,
} from "./constants.js";

describe("constants", () => {
  it("prefixes every storage key with turnout_", () => {
    expect(STORAGE_PREFIX).toBe("turnout_");
    for (const key of Object.values(STORAGE_KEYS)) expect(key.startsWith(STORAGE_PREFIX)).toBe(true);
    expect(new Set(Object.values(STORAGE_KEYS)).size).toBe(Object.values(STORAGE_KEYS).length);
  });

  it("names every sign-up agency in code order", () => {
    expect(SIGNUP_AGENCIES.map((a) => a.code)).toEqual([...SIGNUP_AGENCY_CODES]);
    expect(SIGNUP_AGENCIES.find((a) => a.code === "FRV")?.name).toBe("Fire Rescue Victoria");
  });

  it("holds the spec's derived values", () => {
    expect(INSTALL_REMIND_LATER_MS).toBe(48 * 3600 * 1000);
    expect(MONITOR_STAGGER_MS).toEqual([0, 100, 200, 300, 400]);
    expect(UNMAPPED_AGENCY).toEqual({ code: "UNMAPPED", name: "Unmapped Capcodes" });
  });
});
