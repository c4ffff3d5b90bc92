import { describe, expect, it } from "vitest";
import { admitLiveAlert } from "./live-filter.js";
import {
  alertInUnitView,
  distanceKm,
  feedViewLabel,
  nearestFirst,
  unitIdsSchema,
  unitInputSchema,
  unitLocalityGuess,
  unitViewScope,
} from "./units.js";

const CFA = 2;
const SES = 3;
const OTHER = 4;

describe("the unit view", () => {
  it("reads a member's units, and whole the agencies in which they chose none", () => {
    const scope = unitViewScope(
      [CFA, SES, OTHER],
      [
        { id: 10, agency_id: CFA },
        { id: 11, agency_id: CFA },
        { id: 30, agency_id: 99 },
      ],
    );
    expect(scope).toEqual({ unitIds: [10, 11], wholeAgencyIds: [SES, OTHER] });
    expect(unitViewScope([CFA], [])).toEqual({ unitIds: [], wholeAgencyIds: [CFA] });
  });

  it("admits an alert paged to one of the member's units, or received through a whole agency", () => {
    const scope = unitViewScope([CFA, SES], [{ id: 10, agency_id: CFA }]);
    expect(alertInUnitView({ agency_id: CFA, units: [{ id: 10 }] }, scope)).toBe(true);
    expect(alertInUnitView({ agency_id: CFA, units: [{ id: 12 }] }, scope)).toBe(false);
    expect(alertInUnitView({ agency_id: CFA, units: [] }, scope)).toBe(false);
    expect(alertInUnitView({ agency_id: String(SES) }, scope)).toBe(true);
    expect(alertInUnitView({ agency_id: null, units: null }, scope)).toBe(false);
  });

  it("is applied to live alerts with the other filters, and machine pages stay out unless shown", () => {
    const view = unitViewScope([CFA], [{ id: 10, agency_id: CFA }]);
    const alert = { id: 1, type: "emergency", agency_id: CFA, message: "STRUC1 FIRE", units: [{ id: 10 }] };
    expect(admitLiveAlert(alert, { view }, [])).toBe(true);
    expect(admitLiveAlert({ ...alert, units: [{ id: 11 }] }, { view }, [])).toBe(false);
    expect(admitLiveAlert({ ...alert, units: [{ id: 11 }] }, { view: null }, [])).toBe(true);
    const machine = { ...alert, type: "administrative", is_machine: true };
    expect(admitLiveAlert(machine, { view }, [])).toBe(false);
    expect(admitLiveAlert(machine, { view, showMachine: true }, [])).toBe(true);
  });

  it("labels the view a member is looking at", () => {
    const cfa = [{ name: "Country Fire Authority", code: "CFA" }];
    expect(feedViewLabel("units", [{ name: "Kangaroo Flat" }], cfa)).toBe("My units: Kangaroo Flat");
    expect(feedViewLabel("units", [{ name: "A" }, { name: "B" }, { name: "C" }], cfa)).toBe(
      "My units: A, B +1",
    );
    expect(feedViewLabel("agencies", [{ name: "Kangaroo Flat" }], cfa)).toBe("All of CFA");
    expect(feedViewLabel("units", [], [...cfa, { name: "SES", code: "SES" }])).toBe("All my agencies");
  });
});

describe("units near a place", () => {
  const bendigo = { latitude: -36.757, longitude: 144.2794 };
  const units = [
    { name: "Hotham Heights", latitude: -36.9789, longitude: 147.1553 },
    { name: "Kangaroo Flat", latitude: -36.8, longitude: 144.25 },
    { name: "No Place", latitude: null, longitude: null },
    { name: "Bendigo", latitude: -36.757, longitude: 144.2794 },
    { name: "Doveton", latitude: -38.0, longitude: 145.24 },
  ];

  it("measures great-circle distances", () => {
    expect(distanceKm(bendigo, bendigo)).toBe(0);
    // Bendigo to Melbourne's GPO is about 128 km as the crow flies.
    expect(Math.round(distanceKm(bendigo, { latitude: -37.8136, longitude: 144.9631 }))).toBeGreaterThan(120);
    expect(Math.round(distanceKm(bendigo, { latitude: -37.8136, longitude: 144.9631 }))).toBeLessThan(140);
  });

  it("offers the nearest first, units without a place last, and by name when the place is unknown", () => {
    expect(nearestFirst(units, bendigo).map((u) => [u.name, u.distance_km])).toEqual([
      ["Bendigo", 0],
      ["Kangaroo Flat", 5],
      ["Doveton", 162],
      ["Hotham Heights", 257],
      ["No Place", null],
    ]);
    expect(nearestFirst(units, null).map((u) => u.name)).toEqual([
      "Bendigo",
      "Doveton",
      "Hotham Heights",
      "Kangaroo Flat",
      "No Place",
    ]);
  });

  it("guesses the locality a unit's name holds", () => {
    expect(unitLocalityGuess("Kangaroo Flat Fire Brigade")).toBe("KANGAROO FLAT");
    expect(unitLocalityGuess("Bendigo SES Unit")).toBe("BENDIGO");
    expect(unitLocalityGuess("CFA - Hotham Heights")).toBe("HOTHAM HEIGHTS");
    expect(unitLocalityGuess("Doveton FB (Emerg)")).toBe("DOVETON");
    expect(unitLocalityGuess("SES")).toBeNull();
  });
});

describe("unit inputs", () => {
  it("keeps a member's unit ids distinct and bounded", () => {
    expect(unitIdsSchema.parse([3, 3, 4])).toEqual([3, 4]);
    expect(unitIdsSchema.safeParse([0]).success).toBe(false);
    expect(unitIdsSchema.safeParse(Array.from({ length: 21 }, (_, i) => i + 1)).success).toBe(false);
  });

  it("reads a unit as an admin writes it", () => {
    expect(
      unitInputSchema.parse({ name: " Kangaroo Flat ", code: "kang", postcode: "3555", state: "vic" }),
    ).toEqual({
      name: "Kangaroo Flat",
      code: "KANG",
      postcode: "3555",
      state: "VIC",
    });
    expect(unitInputSchema.parse({ name: "X", code: "", postcode: "", suburb: "", state: "" })).toEqual({
      name: "X",
      code: null,
      postcode: null,
      suburb: null,
      state: null,
    });
    expect(unitInputSchema.safeParse({ name: "" }).success).toBe(false);
    expect(unitInputSchema.safeParse({ name: "X", code: "A B" }).success).toBe(false);
    expect(unitInputSchema.safeParse({ name: "X", postcode: "355" }).success).toBe(false);
  });
});
