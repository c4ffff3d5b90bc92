import { describe, expect, it } from "vitest";
import { selectLocalities, titleCaseLocality } from "./localities.js";

const record = (postcode: string, locality: string, state: string, type = "Delivery Area") => ({
  postcode,
  locality,
  state,
  type,
  lat: -37.8,
  long: 144.9,
});

describe("titleCaseLocality", () => {
  it.each([
    ["NORTH MELBOURNE", "North Melbourne"],
    ["MCKINNON", "McKinnon"],
    ["MCMAHONS POINT", "McMahons Point"],
    ["MACQUARIE PARK", "Macquarie Park"],
    ["O’CONNOR", "O'Connor"],
    ["D'AGUILAR", "D'Aguilar"],
    ["TAM O'SHANTER", "Tam O'Shanter"],
    ["STUN'SAIL BOOM", "Stun'sail Boom"],
    ["UNIVERSITY OF SYDNEY", "University of Sydney"],
    ["EGGS AND BACON BAY", "Eggs and Bacon Bay"],
    ["BRIGHTON-LE-SANDS", "Brighton-le-Sands"],
    ["ERNABELLA (PUKATJA)", "Ernabella (Pukatja)"],
    ["  ST   KILDA ", "St Kilda"],
  ])("writes %s as %s", (raw, expected) => {
    expect(titleCaseLocality(raw)).toBe(expected);
  });
});

describe("selectLocalities", () => {
  it("keeps delivery areas and drops PO boxes and large-volume receivers", () => {
    const out = selectLocalities([
      record("3000", "MELBOURNE", "VIC"),
      record("3001", "MELBOURNE", "VIC", "Post Office Boxes"),
      record("3004", "ST KILDA ROAD", "VIC", "LVR"),
    ]);
    expect(out).toEqual([
      { postcode: "3000", suburb: "Melbourne", state: "VIC", latitude: "-37.8", longitude: "144.9" },
    ]);
  });

  it("keeps unclassified localities unless the locality has a delivery area elsewhere in the state", () => {
    const out = selectLocalities([
      record("0800", "DARWIN CITY", "NT", ""),
      record("3478", "ST ARNAUD", "VIC"),
      record("3477", "ST ARNAUD", "VIC", ""),
      record("3477", "ST ARNAUD", "NSW", ""),
    ]);
    expect(out.map((l) => `${l.postcode} ${l.suburb} ${l.state}`)).toEqual([
      "3478 St Arnaud VIC",
      "0800 Darwin City NT",
      "3477 St Arnaud NSW",
    ]);
  });

  it("drops postcodes outside street delivery, such as 9999 North Pole and PO-box blocks", () => {
    const out = selectLocalities([
      record("9999", "NORTH POLE", "VIC"),
      record("1350", "WOOLLAHRA", "NSW", ""),
      record("6900", "LEEDERVILLE", "WA", ""),
      record("0200", "ANU", "ACT", ""),
    ]);
    expect(out).toEqual([]);
  });

  it("drops mail centres, delivery centres and post offices", () => {
    const out = selectLocalities([
      record("0820", "DARWIN DC", "NT"),
      record("2252", "CENTRAL COAST MC", "NSW", ""),
      record("3777", "HEALESVILLE POST SHOP", "VIC", ""),
      record("6433", "KALGOORLIE PO", "WA", ""),
      record("2174", "INGLEBURN MILPO", "NSW", ""),
      record("2890", "FORCES", "NSW", ""),
    ]);
    expect(out).toEqual([]);
  });

  it("keeps one record per postcode, suburb and state", () => {
    const out = selectLocalities([
      record("2602", "O’CONNOR", "ACT"),
      record("2602", "O'CONNOR", "ACT"),
      record("2602", "O'CONNOR", "ACT", ""),
    ]);
    expect(out.map((l) => l.suburb)).toEqual(["O'Connor"]);
  });
});
