/**
 * Where a job is (issue 34): the best position the offline data gives for an address read from a
 * pager message (extractAddress). From best to worst: the message's own coordinates, the house (or the
 * street) or the corner found in an admin-loaded open address dataset (G-NAF or OpenStreetMap extract),
 * and the suburb's coordinates from the bundled locality data.
 */

/** How exactly a position places the job. */
export const POSITION_PRECISIONS = ["coordinates", "street", "intersection", "suburb"] as const;
export type PositionPrecision = (typeof POSITION_PRECISIONS)[number];

export type LatLon = { latitude: number; longitude: number };
export type Position = LatLon & { precision: PositionPrecision };

/** One address of a dataset on a street: its house number (null for a street without numbers). */
export type AddressPoint = LatLon & { number: number | null };

/**
 * What placing reads: the suburb's coordinates (upper-case name, e.g. "KANGAROO FLAT"), and every
 * point of a street (a streetKey) in a suburb, none when no dataset is loaded or it lacks the street.
 */
export interface Gazetteer {
  suburb(suburb: string): LatLon | null | Promise<LatLon | null>;
  street(streetKey: string, suburb: string): readonly AddressPoint[] | Promise<readonly AddressPoint[]>;
}

/** The part of an extracted address that placing reads (see ExtractedAddress). */
export type PlaceableAddress = {
  street: string | null;
  suburb: string | null;
  latitude: number | null;
  longitude: number | null;
};

/** A corner is placed only when its two streets come this close in the dataset. */
export const INTERSECTION_MAX_METRES = 250;

/** Street types, full or abbreviated, to the one form keys use. */
const TYPE_FORMS: Record<string, string> = {
  STREET: "ST",
  ST: "ST",
  ROAD: "RD",
  RD: "RD",
  AVENUE: "AV",
  AVE: "AV",
  AV: "AV",
  DRIVE: "DR",
  DR: "DR",
  COURT: "CT",
  CRT: "CT",
  CT: "CT",
  CRESCENT: "CRES",
  CRES: "CRES",
  CRS: "CRES",
  CR: "CRES",
  PARADE: "PDE",
  PDE: "PDE",
  HIGHWAY: "HWY",
  HWY: "HWY",
  FREEWAY: "FWY",
  FWY: "FWY",
  LANE: "LANE",
  LA: "LANE",
  LN: "LANE",
  PLACE: "PL",
  PL: "PL",
  TERRACE: "TCE",
  TCE: "TCE",
  BOULEVARD: "BVD",
  BOULEVARDE: "BVD",
  BLVD: "BVD",
  BVD: "BVD",
  GROVE: "GR",
  GR: "GR",
  GV: "GR",
  CLOSE: "CL",
  CL: "CL",
  CIRCUIT: "CCT",
  CCT: "CCT",
  ESPLANADE: "ESP",
  ESP: "ESP",
  TRACK: "TRK",
  TRK: "TRK",
  TRAIL: "TRL",
  TRL: "TRL",
  SQUARE: "SQ",
  SQ: "SQ",
  PARKWAY: "PKWY",
  PKWY: "PKWY",
  PWY: "PKWY",
  WALK: "WK",
  WK: "WK",
  BEND: "BND",
  BND: "BND",
  GARDENS: "GDNS",
  GDNS: "GDNS",
  HEIGHTS: "HTS",
  HTS: "HTS",
  RISE: "RISE",
  LOOP: "LOOP",
  WAY: "WAY",
};

/** Directional suffixes after the type ("LYDIARD ST S", "Lydiard Street South"). */
const SUFFIX_FORMS: Record<string, string> = {
  N: "N",
  NTH: "N",
  NORTH: "N",
  S: "S",
  STH: "S",
  SOUTH: "S",
  E: "E",
  EAST: "E",
  W: "W",
  WEST: "W",
};

/** Name words written either way ("MOUNT MACEDON RD" or "MT MACEDON RD", "SAINT" or "ST"). */
const NAME_FORMS: Record<string, string> = { MOUNT: "MT", SAINT: "ST" };

/**
 * The form a street name is matched in, from pager text ("14 LYDIARD ST S" less its number) or a
 * dataset ("Lydiard Street South"): upper case, apostrophes, dots and hyphens gone, the type and suffix
 * abbreviated one way, MOUNT as MT. Empty for an empty name.
 */
export function streetKey(name: string): string {
  const words = name
    .toUpperCase()
    .replace(/[\u2018\u2019'`.]/g, "")
    .replace(/-/g, " ")
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return "";
  let typeAt = words.length - 1;
  const last = words[typeAt]!;
  if (words.length >= 3 && SUFFIX_FORMS[last] && TYPE_FORMS[words[typeAt - 1]!]) {
    words[typeAt] = SUFFIX_FORMS[last]!;
    typeAt--;
  }
  if (typeAt >= 1 && TYPE_FORMS[words[typeAt]!]) words[typeAt] = TYPE_FORMS[words[typeAt]!]!;
  for (let i = 0; i < typeAt; i++) words[i] = NAME_FORMS[words[i]!] ?? words[i]!;
  return words.join(" ");
}

/** A suburb name as gazetteers key it: upper case, single spaces, MOUNT as MT. */
export function suburbKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/[\u2018\u2019`]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .split(" ")
    .map((word) => (word === "MOUNT" ? "MT" : word))
    .join(" ");
}

/** What a street of extractAddress names: a house on a street, a street, or a corner of two. */
export type StreetParts =
  | { kind: "street"; number: number | null; key: string }
  | { kind: "corner"; keys: [string, string] };

const HOUSE = /^(?:\d{1,5}[A-Z]?\/)?(\d{1,5})[A-Z]?(?:-\d{1,5}[A-Z]?)?$/;
const UNIT_TOKEN = /^U\d{1,4}[A-Z]?$/;
const ROUTE_NUMBER = /^[ABCM]\d{1,3}$/;

/**
 * Splits extractAddress's street: "3/12-14 BROWN RD" is number 12 on BROWN RD, "U3 14 X RD" and
 * "UNIT 3 14 X RD" number 14, "LOT 3 X RD" a lot, so the street without a number, "CNR A RD / B ST"
 * a corner. A route number ("C287") is no street a dataset names: null for a corner with one.
 */
export function streetParts(street: string): StreetParts | null {
  const text = street.toUpperCase().replace(/\s+/g, " ").trim();
  const corner = /^CNR (.+?) \/ (.+)$/.exec(text);
  if (corner) {
    const [a, b] = [corner[1]!, corner[2]!];
    if (ROUTE_NUMBER.test(a) || ROUTE_NUMBER.test(b)) return null;
    return { kind: "corner", keys: [streetKey(a), streetKey(b)] };
  }
  const tokens = text.split(" ");
  let at = 0;
  let number: number | null = null;
  if (tokens[0] === "LOT") at = 2;
  else {
    if (tokens[0] === "UNIT" || tokens[0] === "FLAT" || tokens[0] === "SHOP") at = 2;
    else if (UNIT_TOKEN.test(tokens[0] ?? "")) at = 1;
    const house = HOUSE.exec(tokens[at] ?? "");
    if (house) {
      number = Number(house[1]);
      at++;
    }
  }
  const key = streetKey(tokens.slice(at).join(" "));
  return key === "" ? null : { kind: "street", number, key };
}

/** Metres between two points (equirectangular: exact enough within a town). */
export function metresBetween(a: LatLon, b: LatLon): number {
  const rad = Math.PI / 180;
  const x = (b.longitude - a.longitude) * rad * Math.cos(((a.latitude + b.latitude) / 2) * rad);
  const y = (b.latitude - a.latitude) * rad;
  return Math.sqrt(x * x + y * y) * 6_371_000;
}

const validLatLon = (latitude: number | null, longitude: number | null): boolean =>
  latitude !== null &&
  longitude !== null &&
  Number.isFinite(latitude) &&
  Number.isFinite(longitude) &&
  Math.abs(latitude) <= 90 &&
  Math.abs(longitude) <= 180;

/**
 * The point of a house number on a street: the house itself; else between the nearest numbers on its
 * side of the street (same parity) below and above; else the nearest number. Without a number (or no
 * numbered point), the middle point of the street by number: a point on the street.
 */
export function housePoint(points: readonly AddressPoint[], number: number | null): LatLon | null {
  if (points.length === 0) return null;
  const numbered = points
    .filter((p): p is AddressPoint & { number: number } => p.number !== null)
    .sort((a, b) => a.number - b.number);
  if (number === null || numbered.length === 0) {
    const list = numbered.length ? numbered : points;
    const middle = list[Math.floor((list.length - 1) / 2)]!;
    return { latitude: middle.latitude, longitude: middle.longitude };
  }
  const exact = numbered.find((p) => p.number === number);
  if (exact) return { latitude: exact.latitude, longitude: exact.longitude };
  const side = numbered.filter((p) => p.number % 2 === number % 2);
  const below = side.filter((p) => p.number < number).at(-1);
  const above = side.find((p) => p.number > number);
  if (below && above) {
    const t = (number - below.number) / (above.number - below.number);
    return {
      latitude: below.latitude + (above.latitude - below.latitude) * t,
      longitude: below.longitude + (above.longitude - below.longitude) * t,
    };
  }
  let nearest = numbered[0]!;
  for (const p of numbered) if (Math.abs(p.number - number) < Math.abs(nearest.number - number)) nearest = p;
  return { latitude: nearest.latitude, longitude: nearest.longitude };
}

/** Where two streets meet: the middle of their closest two points, when within INTERSECTION_MAX_METRES. */
export function cornerPoint(a: readonly AddressPoint[], b: readonly AddressPoint[]): LatLon | null {
  let best: { d: number; p: AddressPoint; q: AddressPoint } | null = null;
  for (const p of a) {
    for (const q of b) {
      const d = metresBetween(p, q);
      if (!best || d < best.d) best = { d, p, q };
    }
  }
  if (!best || best.d > INTERSECTION_MAX_METRES) return null;
  return {
    latitude: (best.p.latitude + best.q.latitude) / 2,
    longitude: (best.p.longitude + best.q.longitude) / 2,
  };
}

/**
 * The best position for an extracted address (see the module comment), or null when nothing places it
 * (no coordinates, no suburb, a suburb the gazetteer does not know).
 */
export async function placeAddress(
  address: PlaceableAddress,
  gazetteer: Gazetteer,
): Promise<Position | null> {
  if (validLatLon(address.latitude, address.longitude)) {
    return { latitude: address.latitude!, longitude: address.longitude!, precision: "coordinates" };
  }
  if (!address.suburb) return null;
  const suburb = suburbKey(address.suburb);
  const parts = address.street ? streetParts(address.street) : null;
  if (parts?.kind === "street") {
    const point = housePoint(await gazetteer.street(parts.key, suburb), parts.number);
    if (point) return { ...point, precision: "street" };
  } else if (parts?.kind === "corner") {
    const [a, b] = await Promise.all(parts.keys.map((key) => gazetteer.street(key, suburb)));
    const point = cornerPoint(a!, b!);
    if (point) return { ...point, precision: "intersection" };
  }
  const centre = await gazetteer.suburb(suburb);
  return centre && validLatLon(centre.latitude, centre.longitude) ? { ...centre, precision: "suburb" } : null;
}

/** One address of a dataset, as a loader reads it; null fields are missing in the row. */
export type DatasetAddress = {
  number: string | null;
  street: string | null;
  suburb: string | null;
  latitude: number;
  longitude: number;
};

/**
 * A dataset row as stored (street and suburb keyed, number parsed), or the reason it cannot be used.
 * Australia only: a point outside the continent's box is refused.
 */
export function datasetPoint(row: DatasetAddress):
  | { ok: true; street: string; suburb: string; number: number | null; latitude: number; longitude: number }
  | {
      ok: false;
      reason: string;
    } {
  const street = streetKey(row.street ?? "");
  const suburb = suburbKey(row.suburb ?? "");
  if (street === "") return { ok: false, reason: "no street" };
  if (suburb === "") return { ok: false, reason: "no suburb" };
  const { latitude, longitude } = row;
  if (
    !validLatLon(latitude, longitude) ||
    latitude > -9 ||
    latitude < -44 ||
    longitude < 112 ||
    longitude > 154
  ) {
    return { ok: false, reason: "coordinates outside Australia" };
  }
  const house = HOUSE.exec((row.number ?? "").toUpperCase().trim());
  return { ok: true, street, suburb, number: house ? Number(house[1]) : null, latitude, longitude };
}
