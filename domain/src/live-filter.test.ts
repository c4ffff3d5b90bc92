import { describe, expect, it } from "vitest";
import { admitLiveAlert, messageMatchesSearch, parseSearchTerms } from "./live-filter.js";

const alert = {
  id: 42,
  type: "emergency",
  agency_id: 3,
  area: "Bendigo",
  message: "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
};

describe("parseSearchTerms", () => {
  it("splits on any whitespace, drops empties and lower-cases", () => {
    expect(parseSearchTerms("  Shed\tFIRE \n rd ")).toEqual(["shed", "fire", "rd"]);
  });

  it("returns no terms for an empty or blank search", () => {
    expect(parseSearchTerms("")).toEqual([]);
    expect(parseSearchTerms("   ")).toEqual([]);
  });
});

describe("messageMatchesSearch", () => {
  it("matches when every term appears, ignoring case", () => {
    expect(messageMatchesSearch("SHED FIRE Example Rd", ["shed", "EXAMPLE"])).toBe(true);
  });

  it("fails when any term is missing", () => {
    expect(messageMatchesSearch("SHED FIRE", ["shed", "grass"])).toBe(false);
  });

  it("matches anything with no terms", () => {
    expect(messageMatchesSearch("SHED FIRE", [])).toBe(true);
  });
});

describe("admitLiveAlert", () => {
  it("admits a new alert when no filters are set", () => {
    expect(admitLiveAlert(alert, {}, [])).toBe(true);
    expect(admitLiveAlert(alert, { agencyId: null, type: "", area: null, search: "" }, new Set())).toBe(true);
  });

  it("treats 'all' as no filter", () => {
    expect(admitLiveAlert(alert, { agencyId: "all", type: "all", area: "All" }, [])).toBe(true);
  });

  it("checks the agency filter, comparing numbers and numeric strings", () => {
    expect(admitLiveAlert(alert, { agencyId: "3" }, [])).toBe(true);
    expect(admitLiveAlert(alert, { agencyId: 4 }, [])).toBe(false);
    expect(admitLiveAlert({ ...alert, agency_id: null }, { agencyId: 3 }, [])).toBe(false);
  });

  it("compares normalised types", () => {
    expect(admitLiveAlert({ ...alert, type: "admin" }, { type: "administrative" }, [])).toBe(true);
    expect(admitLiveAlert({ ...alert, type: "EMERGENCY" }, { type: "emergency" }, [])).toBe(true);
    expect(admitLiveAlert(alert, { type: "non-emergency" }, [])).toBe(false);
    expect(admitLiveAlert({ ...alert, type: null }, { type: "standard" }, [])).toBe(true);
  });

  it("checks the area filter, ignoring case", () => {
    expect(admitLiveAlert(alert, { area: "bendigo" }, [])).toBe(true);
    expect(admitLiveAlert(alert, { area: "Ballarat" }, [])).toBe(false);
    expect(admitLiveAlert({ ...alert, area: null }, { area: "Bendigo" }, [])).toBe(false);
  });

  it("requires all search terms in the message", () => {
    expect(admitLiveAlert(alert, { search: "shed example" }, [])).toBe(true);
    expect(admitLiveAlert(alert, { search: "shed grass" }, [])).toBe(false);
  });

  it("rejects an alert whose id is already listed, in a set or an array", () => {
    expect(admitLiveAlert(alert, {}, new Set([42]))).toBe(false);
    expect(admitLiveAlert(alert, {}, [1, 42])).toBe(false);
    expect(admitLiveAlert(alert, {}, ["42"])).toBe(false);
    expect(admitLiveAlert({ ...alert, id: "42" }, {}, new Set([42]))).toBe(false);
    expect(admitLiveAlert(alert, {}, new Set([41, 43]))).toBe(true);
  });

  it("needs every set filter to match at once", () => {
    const filters = { agencyId: 3, type: "emergency", area: "Bendigo", search: "shed" };
    expect(admitLiveAlert(alert, filters, [])).toBe(true);
    expect(admitLiveAlert(alert, { ...filters, search: "grass" }, [])).toBe(false);
  });
});
