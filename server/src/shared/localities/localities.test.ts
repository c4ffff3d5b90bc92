import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadLocalitiesCached, selectLocalities, titleCaseLocality } from "./localities.js";

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

describe("loadLocalitiesCached", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A data file of two localities, and where its cache goes (in a folder not made yet). */
  function fixture() {
    const dir = mkdtempSync(path.join(tmpdir(), "turnout-localities-"));
    dirs.push(dir);
    const file = path.join(dir, "postcodes.json");
    writeFileSync(file, JSON.stringify([record("3550", "BENDIGO", "VIC"), record("3551", "ASCOT", "VIC")]));
    return { file, cacheFile: path.join(dir, "data", "localities-cache.json") };
  }
  const suburbs = (list: { suburb: string }[]) => list.map((l) => l.suburb);

  it("reads the source once, then the localities it kept, for the same source", () => {
    const { file, cacheFile } = fixture();
    const errors: unknown[] = [];
    const first = loadLocalitiesCached(cacheFile, { file, onCacheError: (e) => errors.push(e) });
    expect(suburbs(first)).toEqual(["Bendigo", "Ascot"]);
    // What the next start reads is the cache: a change made to it shows.
    const kept = JSON.parse(readFileSync(cacheFile, "utf8"));
    kept.localities[0][1] = "Bendigo (kept)";
    writeFileSync(cacheFile, JSON.stringify(kept));
    const second = loadLocalitiesCached(cacheFile, { file, onCacheError: (e) => errors.push(e) });
    expect(second[0]).toEqual({ ...first[0], suburb: "Bendigo (kept)" });
    expect(second.slice(1)).toEqual(first.slice(1));
    expect(errors).toEqual([]);
  });

  it("reads the source again when it changed, and writes the cache anew", () => {
    const { file, cacheFile } = fixture();
    loadLocalitiesCached(cacheFile, { file });
    writeFileSync(file, JSON.stringify([record("3352", "BALLARAT", "VIC")]));
    expect(suburbs(loadLocalitiesCached(cacheFile, { file }))).toEqual(["Ballarat"]);
    expect(JSON.parse(readFileSync(cacheFile, "utf8")).localities).toEqual([
      ["3352", "Ballarat", "VIC", "-37.8", "144.9"],
    ]);
  });

  it("reads the source when the cache is damaged, says so, and mends it", () => {
    const { file, cacheFile } = fixture();
    loadLocalitiesCached(cacheFile, { file });
    for (const damage of ['{"stamp": "x", "localit', '{"stamp": 1, "localities": []}']) {
      writeFileSync(cacheFile, damage);
      const errors: unknown[] = [];
      expect(suburbs(loadLocalitiesCached(cacheFile, { file, onCacheError: (e) => errors.push(e) }))).toEqual(
        ["Bendigo", "Ascot"],
      );
      expect(errors).toHaveLength(1);
      expect(JSON.parse(readFileSync(cacheFile, "utf8")).localities).toHaveLength(2);
    }
  });

  it("still answers when the cache cannot be written, and says why", () => {
    const { file } = fixture();
    const errors: unknown[] = [];
    // A cache "folder" that is a file: nothing can be written under it.
    const cacheFile = path.join(file, "localities-cache.json");
    expect(suburbs(loadLocalitiesCached(cacheFile, { file, onCacheError: (e) => errors.push(e) }))).toEqual([
      "Bendigo",
      "Ascot",
    ]);
    expect(errors).toHaveLength(1);
  });
});
