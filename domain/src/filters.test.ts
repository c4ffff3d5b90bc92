import { describe, expect, it } from "vitest";
import {
  bulkFiltersSchema,
  filterStateFromRow,
  hidesEveryAgency,
  isAgencyVisible,
  nextFilterState,
  toBulkFilters,
} from "./filters.js";

describe("nextFilterState", () => {
  it("toggles default to hide, show to hide and hide to show", () => {
    expect(nextFilterState("default")).toBe("hide");
    expect(nextFilterState("show")).toBe("hide");
    expect(nextFilterState("hide")).toBe("show");
  });
});

describe("filterStateFromRow", () => {
  it("reads no row as default, enabled as show, disabled as hide", () => {
    expect(filterStateFromRow(undefined)).toBe("default");
    expect(filterStateFromRow({ is_enabled: true })).toBe("show");
    expect(filterStateFromRow({ is_enabled: false })).toBe("hide");
  });
});

describe("isAgencyVisible", () => {
  it("shows default and show, hides hide", () => {
    expect(isAgencyVisible("default")).toBe(true);
    expect(isAgencyVisible("show")).toBe(true);
    expect(isAgencyVisible("hide")).toBe(false);
  });
});

describe("hidesEveryAgency", () => {
  const hide = (filter_value: string) => ({ filter_type: "agency", filter_value, is_enabled: false });
  const show = (filter_value: string) => ({ filter_type: "agency", filter_value, is_enabled: true });

  it("is true when every agency of the user has a hiding filter", () => {
    expect(hidesEveryAgency(["2", "3"], [hide("2"), hide("3")])).toBe(true);
  });

  it("is false while one agency is shown, explicitly or by default", () => {
    expect(hidesEveryAgency(["2", "3"], [hide("2"), show("3")])).toBe(false);
    expect(hidesEveryAgency(["2", "3"], [hide("2")])).toBe(false);
  });

  it("is false for a user with no agency at all", () => {
    expect(hidesEveryAgency([], [hide("2")])).toBe(false);
  });

  it("ignores hiding rows of agencies the user no longer has", () => {
    expect(hidesEveryAgency(["2"], [hide("9")])).toBe(false);
  });
});

describe("toBulkFilters", () => {
  it("sends show and hide choices as agency rows and leaves defaults out", () => {
    expect(toBulkFilters({ "1": "show", "2": "hide", "3": "default" })).toEqual([
      { filter_type: "agency", filter_value: "1", is_enabled: true },
      { filter_type: "agency", filter_value: "2", is_enabled: false },
    ]);
  });
});

describe("bulkFiltersSchema", () => {
  it("accepts agency rows and turns numeric values into strings", () => {
    const parsed = bulkFiltersSchema.parse({
      filters: [{ filter_type: "agency", filter_value: 7, is_enabled: false }],
    });
    expect(parsed.filters[0]).toEqual({ filter_type: "agency", filter_value: "7", is_enabled: false });
  });

  it("rejects other filter types and blank values", () => {
    expect(
      bulkFiltersSchema.safeParse({ filters: [{ filter_type: "area", filter_value: "x", is_enabled: true }] })
        .success,
    ).toBe(false);
    expect(
      bulkFiltersSchema.safeParse({
        filters: [{ filter_type: "agency", filter_value: " ", is_enabled: true }],
      }).success,
    ).toBe(false);
  });
});
