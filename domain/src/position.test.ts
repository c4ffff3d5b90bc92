import { describe, expect, it } from "vitest";
import { buildLocalityIndex, extractAddress } from "./address.js";
import {
  type AddressPoint,
  cornerPoint,
  type DatasetAddress,
  datasetPoint,
  type Gazetteer,
  housePoint,
  metresBetween,
  placeAddress,
  streetKey,
  streetParts,
  suburbKey,
} from "./position.js";

// Suburb centres as the bundled locality data gives them (rounded).
const SUBURBS: Record<string, { latitude: number; longitude: number; state: string }> = {
  "KANGAROO FLAT": { latitude: -36.8, longitude: 144.25, state: "VIC" },
  "BALLARAT CENTRAL": { latitude: -37.56, longitude: 143.85, state: "VIC" },
  RAVENSWOOD: { latitude: -36.9, longitude: 144.23, state: "VIC" },
  SUNBURY: { latitude: -37.58, longitude: 144.73, state: "VIC" },
  HARCOURT: { latitude: -37.0, longitude: 144.26, state: "VIC" },
  "MOUNT MACEDON": { latitude: -37.4, longitude: 144.58, state: "VIC" },
  "MELTON SOUTH": { latitude: -37.71, longitude: 144.57, state: "VIC" },
};
const localities = buildLocalityIndex(Object.entries(SUBURBS).map(([name, s]) => ({ name, state: s.state })));

/** A G-NAF style extract: number, street name, type and suffix written in full, as the loader reads them. */
const GNAF: DatasetAddress[] = [
  ...[101, 103, 105, 107, 109].map((n, i) =>
    row(n, "HIGH STREET", "KANGAROO FLAT", -36.7901 + i * 0.0002, 144.2401),
  ),
  ...[10, 14, 18].map((n, i) =>
    row(n, "LYDIARD STREET SOUTH", "BALLARAT CENTRAL", -37.562 + i * 0.0003, 143.856),
  ),
  ...[2, 4].map((n, i) => row(n, "LYDIARD STREET NORTH", "BALLARAT CENTRAL", -37.555 + i * 0.0003, 143.856)),
  ...[1000, 1100, 1200].map((n, i) => row(n, "CALDER HIGHWAY", "RAVENSWOOD", -36.91 + i * 0.01, 144.22)),
  row(1, "HORNE STREET", "SUNBURY", -37.5781, 144.7261),
  row(40, "HORNE STREET", "SUNBURY", -37.5741, 144.7301),
  row(2, "BARKLY STREET", "SUNBURY", -37.5779, 144.7263),
  row(410, "MOUNT MACEDON ROAD", "MOUNT MACEDON", -37.401, 144.581),
  row(12, "BROWN ROAD", "MELTON SOUTH", -37.712, 144.571),
];

function row(number: number | null, street: string, suburb: string, latitude: number, longitude: number) {
  return { number: number === null ? null : String(number), street, suburb, latitude, longitude };
}

/** The gazetteer placing reads: the suburbs above, and the dataset when loaded. */
function gazetteer(dataset: DatasetAddress[] = []): Gazetteer & { streetLookups: string[] } {
  const points = new Map<string, AddressPoint[]>();
  for (const address of dataset) {
    const point = datasetPoint(address);
    if (!point.ok) throw new Error(point.reason);
    const key = `${point.suburb}|${point.street}`;
    points.set(key, [...(points.get(key) ?? []), point]);
  }
  const streetLookups: string[] = [];
  return {
    streetLookups,
    suburb: (name) => {
      const entry = Object.entries(SUBURBS).find(([key]) => suburbKey(key) === name);
      return entry ? { latitude: entry[1].latitude, longitude: entry[1].longitude } : null;
    },
    street: (key, suburb) => {
      streetLookups.push(`${key}, ${suburb}`);
      return points.get(`${suburb}|${key}`) ?? [];
    },
  };
}

const place = (text: string, dataset?: DatasetAddress[]) =>
  placeAddress(extractAddress(text, localities), gazetteer(dataset));

// Messages of the address corpus (server/src/modules/ingest/address-corpus.ts).
const HOUSE_FIRE =
  "@@ALERT F251201001 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT /OLYMPIC PDE //HOLDSWORTH RD SVC 7785 J10 (471230) CKANG CBEND [KANG]";
const SUFFIX =
  "@@ALERT F251201009 BALL1 ALARC1 AFA 14 LYDIARD ST S BALLARAT CENTRAL /DANA ST //GREY ST SVC 6228 E4 (245611) CBALL [BALL]";
const HIGHWAY =
  "@@ALERT F251201004 RAVE1 RESCC1 CAR VS TREE CALDER HWY RAVENSWOOD /MANDURANG SOUTH RD //SHADBOLTS RD SVVB 7706 H2 (632488) CRAVE CHARC [RAVE]";
const CORNER =
  "@@ALERT F251201022 SUNB1 RESCC1 MVA CNR HORNE ST / BARKLY ST SUNBURY /O'SHANASSY ST M 382 J5 (112233) CSUNB [SUNB]";
const ROUTE_CORNER =
  "@@ALERT F251201007 HARC1 RESCC1 MVA CNR MAIN RD/C287 HARCOURT SVVB 7707 A3 (662100) CHARC CRAVE [HARC]";
const MOUNT =
  "@@ALERT F251201020 MACE1 G&SC2 SCRUB FIRE 410 MOUNT MACEDON RD MOUNT MACEDON /HONOUR AV SVC 6608 E2 (772190) CMACE [MACE]";
const RANGE =
  "@@ALERT F251201023 MELT1 G&SC1 GRASS FIRE NEAR HOUSES 12-14 BROWN RD MELTON SOUTH /FERRIS RD //EXFORD RD M 336 F9 (243618) CMELT [MELT]";
const COORDINATES = "@@ALERT S251201214 SES VICSES LOST PERSON SEARCH LAT/LON:-37.42, 145.88 [SESALEX]";
const NO_ADDRESS = "@@ALERT F251201999 KANG1 TIMEUPDATE 1234 [KANG]";

describe("placeAddress on corpus cases", () => {
  it("places at the suburb's coordinates without a dataset", async () => {
    await expect(place(HOUSE_FIRE)).resolves.toEqual({
      latitude: -36.8,
      longitude: 144.25,
      precision: "suburb",
    });
    await expect(place(HIGHWAY)).resolves.toEqual({
      latitude: -36.9,
      longitude: 144.23,
      precision: "suburb",
    });
    await expect(place(CORNER)).resolves.toMatchObject({ precision: "suburb" });
  });

  it("places the house itself when the dataset has it (full street type in the dataset)", async () => {
    await expect(place(HOUSE_FIRE, GNAF)).resolves.toEqual({
      latitude: -36.7901 + 2 * 0.0002,
      longitude: 144.2401,
      precision: "street",
    });
    await expect(place(MOUNT, GNAF)).resolves.toEqual({
      latitude: -37.401,
      longitude: 144.581,
      precision: "street",
    });
  });

  it("tells LYDIARD ST S from LYDIARD ST N", async () => {
    const placed = await place(SUFFIX, GNAF);
    expect(placed).toMatchObject({ precision: "street", longitude: 143.856 });
    expect(placed!.latitude).toBeCloseTo(-37.5617, 4);
  });

  it("places a number range at its first number", async () => {
    await expect(place(RANGE, GNAF)).resolves.toEqual({
      latitude: -37.712,
      longitude: 144.571,
      precision: "street",
    });
  });

  it("places a highway without a number on a point of the highway in that suburb", async () => {
    await expect(place(HIGHWAY, GNAF)).resolves.toEqual({
      latitude: -36.9,
      longitude: 144.22,
      precision: "street",
    });
  });

  it("places a corner between the two streets' nearest points", async () => {
    const placed = await place(CORNER, GNAF);
    expect(placed).toMatchObject({ precision: "intersection" });
    expect(placed!.latitude).toBeCloseTo(-37.578, 4);
    expect(placed!.longitude).toBeCloseTo(144.7262, 4);
  });

  it("falls back to the suburb for a corner with a route number, without looking up streets", async () => {
    const g = gazetteer(GNAF);
    const placed = await placeAddress(extractAddress(ROUTE_CORNER, localities), g);
    expect(placed).toEqual({ latitude: -37.0, longitude: 144.26, precision: "suburb" });
    expect(g.streetLookups).toEqual([]);
  });

  it("falls back to the suburb for a street the dataset lacks", async () => {
    const missing = HOUSE_FIRE.replace("105 HIGH ST", "7 OLYMPIC PDE");
    await expect(place(missing, GNAF)).resolves.toMatchObject({ precision: "suburb", latitude: -36.8 });
  });

  it("takes the message's own coordinates first", async () => {
    await expect(place(COORDINATES, GNAF)).resolves.toEqual({
      latitude: -37.42,
      longitude: 145.88,
      precision: "coordinates",
    });
  });

  it("places nothing without an address, or in a suburb nobody knows", async () => {
    await expect(place(NO_ADDRESS, GNAF)).resolves.toBeNull();
    const unknown = await placeAddress(
      { street: "1 MAIN ST", suburb: "NOWHERE", latitude: null, longitude: null },
      gazetteer(GNAF),
    );
    expect(unknown).toBeNull();
  });
});

describe("streetKey", () => {
  it("reads pager and dataset spellings alike", () => {
    expect(streetKey("LYDIARD ST S")).toBe("LYDIARD ST S");
    expect(streetKey("Lydiard Street South")).toBe("LYDIARD ST S");
    expect(streetKey("MT MACEDON RD")).toBe(streetKey("Mount Macedon Road"));
    expect(streetKey("ST GEORGES RD")).toBe(streetKey("Saint Georges Road"));
    expect(streetKey("O'GRADY AVE")).toBe(streetKey("OGRADY AVENUE"));
    expect(streetKey("CALDER HIGHWAY")).toBe("CALDER HWY");
    expect(streetKey("WEST ST")).toBe("WEST ST");
    expect(streetKey("  ")).toBe("");
  });
});

describe("streetParts", () => {
  it("splits numbers, units, lots and corners", () => {
    expect(streetParts("3/12-14 BROWN RD")).toEqual({ kind: "street", number: 12, key: "BROWN RD" });
    expect(streetParts("U3 14 EXAMPLE RD")).toEqual({ kind: "street", number: 14, key: "EXAMPLE RD" });
    expect(streetParts("UNIT 3 14 EXAMPLE RD")).toEqual({ kind: "street", number: 14, key: "EXAMPLE RD" });
    expect(streetParts("LOT 3 EXAMPLE RD")).toEqual({ kind: "street", number: null, key: "EXAMPLE RD" });
    expect(streetParts("14A HIGH ST")).toEqual({ kind: "street", number: 14, key: "HIGH ST" });
    expect(streetParts("CNR HORNE ST / BARKLY ST")).toEqual({
      kind: "corner",
      keys: ["HORNE ST", "BARKLY ST"],
    });
    expect(streetParts("CNR MAIN RD / C287")).toBeNull();
  });
});

describe("housePoint and cornerPoint", () => {
  const street: AddressPoint[] = [
    { number: 1, latitude: -37, longitude: 144 },
    { number: 9, latitude: -37.004, longitude: 144 },
    { number: 2, latitude: -37, longitude: 144.001 },
    { number: 20, latitude: -37.009, longitude: 144.001 },
  ];

  it("interpolates between the numbers on the house's side of the street", () => {
    const point = housePoint(street, 5)!;
    expect(point.latitude).toBeCloseTo(-37.002, 6);
    expect(point.longitude).toBe(144);
    expect(housePoint(street, 11)).toEqual({ latitude: -37.004, longitude: 144 });
    expect(housePoint([], 5)).toBeNull();
  });

  it("joins two streets only when they come within 250 m", () => {
    const far: AddressPoint[] = [{ number: 1, latitude: -37.01, longitude: 144.01 }];
    expect(cornerPoint(street, far)).toBeNull();
    const near: AddressPoint[] = [{ number: 1, latitude: -37.0005, longitude: 144 }];
    expect(cornerPoint(street, near)).toEqual({ latitude: -37.00025, longitude: 144 });
    expect(
      metresBetween({ latitude: -37, longitude: 144 }, { latitude: -37.001, longitude: 144 }),
    ).toBeCloseTo(111.2, 0);
  });
});

describe("datasetPoint", () => {
  it("keys a row and refuses one it cannot use", () => {
    expect(datasetPoint(row(14, "Lydiard Street South", "Ballarat Central", -37.56, 143.85))).toEqual({
      ok: true,
      street: "LYDIARD ST S",
      suburb: "BALLARAT CENTRAL",
      number: 14,
      latitude: -37.56,
      longitude: 143.85,
    });
    expect(datasetPoint(row(null, "", "X", -37, 144))).toEqual({ ok: false, reason: "no street" });
    expect(datasetPoint(row(1, "A ST", "", -37, 144))).toEqual({ ok: false, reason: "no suburb" });
    expect(datasetPoint(row(1, "A ST", "X", 51.5, -0.1))).toEqual({
      ok: false,
      reason: "coordinates outside Australia",
    });
  });
});
