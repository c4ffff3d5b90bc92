import { type LocalityIndex, localityAt, type Place } from "./address-localities.js";
import {
  COMPASS_WORDS,
  HIGHWAY_TYPES,
  HIGHWAYS,
  HOUSE_NUMBER,
  isBarrier,
  isNameWord,
  isType,
  ROUTE_NUMBER,
  SHORT_NUMBER,
  STOP_WORDS,
  STREET_SUFFIXES,
  TYPE_ABBREVIATIONS,
  TYPE_WORDS,
  UNIT_TOKEN,
  UNIT_WORDS,
  WORD,
} from "./address-words.js";
import { displayText } from "./message.js";

// Part of the address API that index.ts exports from this file.
export { buildLocalityIndex, type LocalityIndex } from "./address-localities.js";

/** What extractAddress reads from a pager message; every field is null (or empty) when it cannot be read. */
export type ExtractedAddress = {
  /** e.g. "14 EXAMPLE RD, SOMEVILLE" or "CNR MAIN ST / HIGH ST, SOMEVILLE"; null when none can be read. */
  primary_address: string | null;
  /** House number and street ("14 EXAMPLE RD"), or the intersection ("CNR MAIN ST / HIGH ST"). */
  street: string | null;
  /** Suburb or town ("SOMEVILLE"). */
  suburb: string | null;
  /** Cross streets after "/" and "//" ("FIRST ST", "SECOND AV"); empty unless a street and suburb were read. */
  cross_streets: string[];
  /** Melway ("M 45 C7") or Spatial Vision ("SVNE 8352 D8") map reference. */
  map_reference: string | null;
  /** Grid reference from "(512345)". */
  grid_reference: string | null;
  /** Latitude from "LAT/LON:-37.29, 144.42", when in range. */
  latitude: number | null;
  /** Longitude from "LAT/LON:-37.29, 144.42", when in range. */
  longitude: number | null;
  /** True when a street and suburb, an intersection and suburb, or coordinates were read. */
  has_mappable_address: boolean;
  /** Turn-by-turn directions link (see directionsUrl); null when not mappable. */
  directions_url: string | null;
};

const MAP_REFERENCE =
  /\b(?:M \d{1,4}[A-Z]? [A-K](?:1[0-2]|[1-9])|SV[A-Z]{1,3} \d{1,5}[A-Z]? [A-Z]\d{1,2})(?![A-Z0-9])/;
const GRID_REFERENCE = /\((\d{4,8})\)/;
const LAT_LON = /\bLAT\s*\/\s*LONG?\s*:?\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)/;
const ALL_LAT_LON = new RegExp(LAT_LON.source, "g");
const CROSS_MARKER = /\s\/+/g;
const ALL_TYPES = [...TYPE_ABBREVIATIONS, ...TYPE_WORDS].join("|");
// "CNR A RD / B ST" -> "CNR A RD/B ST", so the spaced slash is not taken for a cross-street marker.
const SPACED_CORNER = new RegExp(
  `\\bCNR\\s+((?:[A-Z0-9'-]+\\s+){1,5}?(?:${ALL_TYPES})(?:\\s+(?:NTH|STH|N|S|E|W|NORTH|SOUTH|EAST|WEST))?|[ABCM]\\d{1,3})\\s*\\/\\s*`,
  "g",
);

/** A suburb by word shape: one to four words; of the street types only "ST" as its first word ("ST KILDA EAST") and GROVE. */
function isSuburbShape(words: string[]): boolean {
  if (words.length < 1 || words.length > 4) return false;
  if (STREET_SUFFIXES.has(words[0]!)) return false;
  return words.every(
    (word, i) =>
      WORD.test(word) &&
      !STOP_WORDS.has(word) &&
      (!isType(word) || word === "GROVE" || (i === 0 && word === "ST")),
  );
}

/**
 * Reads the words as one suburb: exactly one known locality when there is a list (real suburbs such as
 * KANGAROO FLAT, GOLDEN SQUARE and BRIDGEWATER ON LODDON hold words the shape rules reject), else by shape.
 */
function readSuburb(words: string[], localities: LocalityIndex | undefined): Place | null {
  if (!localities) return isSuburbShape(words) ? { suburb: words.join(" "), state: "VIC" } : null;
  const place = localityAt(localities, words, 0);
  return place && place.suburb.split(" ").length === words.length ? place : null;
}

type StreetMatch = { street: string; suburb: string; state: string };

/** The known highway name that ends just before tokens[typeAt]; null when there is none. */
function highwayEndingAt(tokens: string[], typeAt: number): string[] | null {
  if (!HIGHWAY_TYPES.has(tokens[typeAt]!)) return null;
  let best: string[] | null = null;
  for (const name of HIGHWAYS) {
    const from = typeAt - name.length;
    if (from < 0 || (best && best.length >= name.length)) continue;
    if (name.every((word, i) => tokens[from + i] === word)) best = name;
  }
  return best;
}

/** Reads the street that ends at tokens[typeAt] and walks left over its name and house number. */
function readStreetEndingAt(
  tokens: string[],
  typeAt: number,
  localities: LocalityIndex | undefined,
  mustStartAt?: number,
): StreetMatch | null {
  let end = typeAt + 1;
  let place: Place | null;
  if (STREET_SUFFIXES.has(tokens[end] ?? "")) {
    end++;
    place = readSuburb(tokens.slice(end), localities);
  } else {
    place = readSuburb(tokens.slice(end), localities);
    // "MAIN RD EAST BENDIGO": EAST starts the suburb only when that is a known locality.
    if (!place && localities && COMPASS_WORDS.has(tokens[end] ?? "")) {
      end++;
      place = readSuburb(tokens.slice(end), localities);
    }
  }
  if (!place) return null;

  const name: string[] = [];
  let i = typeAt - 1;
  while (i >= 0 && name.length < 4) {
    const token = tokens[i]!;
    if (token === "ST" && name.length > 0) {
      // "ST GEORGES RD": saint may only be the first word of a name.
      name.unshift(token);
      i--;
      break;
    }
    if (!isNameWord(token)) break;
    name.unshift(token);
    i--;
  }
  if (name.length === 0) return null;

  const type = tokens.slice(typeAt, end);
  const street = [...name, ...type];
  const left = tokens[i];
  if (mustStartAt !== undefined) {
    if (i + 1 !== mustStartAt) return null;
  } else if (left !== undefined && HOUSE_NUMBER.test(left)) {
    // "LOT 3", "U3 14" and "UNIT 3 14" keep their unit part.
    const before = tokens[i - 1] ?? "";
    if (UNIT_WORDS.has(before) || UNIT_TOKEN.test(before)) street.unshift(before, left);
    else if (SHORT_NUMBER.test(before) && UNIT_WORDS.has(tokens[i - 2] ?? "")) {
      street.unshift(tokens[i - 2]!, before, left);
    } else street.unshift(left);
  } else {
    const highway = highwayEndingAt(tokens, typeAt);
    if (highway) return { street: [...highway, ...type].join(" "), ...place };
    // The name runs on into more words: free text and street name cannot be told apart.
    if (left !== undefined && !isBarrier(left)) return null;
    // Without a house number, only a short plain name right after a barrier is trusted.
    if (name.length > 3 || name.some((word) => TYPE_WORDS.has(word))) return null;
  }
  return { street: street.join(" "), ...place };
}

/** Finds the one street + suburb that ends the tokens; null when there is none or more than one reading. */
function readStreetAndSuburb(
  tokens: string[],
  localities: LocalityIndex | undefined,
  mustStartAt?: number,
): StreetMatch | null {
  const readings: Array<{ typeAt: number; match: StreetMatch }> = [];
  tokens.forEach((token, typeAt) => {
    if (!isType(token)) return;
    const match = readStreetEndingAt(tokens, typeAt, localities, mustStartAt);
    if (match) readings.push({ typeAt, match });
  });
  // "CHAPEL STREET ST KILDA": a type followed by ST reads as the street, ST starts the suburb.
  const kept = readings.filter(
    ({ typeAt }) => !(tokens[typeAt] === "ST" && readings.some((other) => other.typeAt === typeAt - 1)),
  );
  return kept.length === 1 ? kept[0]!.match : null;
}

/** A corner's first road: a short street name with its type (and suffix), or a route number ("C287"). */
function isCornerStreet(words: string[]): boolean {
  if (words.length === 1 && ROUTE_NUMBER.test(words[0]!)) return true;
  let typeAt = words.length - 1;
  if (STREET_SUFFIXES.has(words[typeAt]!) || COMPASS_WORDS.has(words[typeAt]!)) typeAt--;
  if (!isType(words[typeAt])) return false;
  const name = words.slice(0, typeAt);
  return (
    name.length >= 1 &&
    name.length <= 4 &&
    name.every((word, i) => isNameWord(word) || (i === 0 && word === "ST"))
  );
}

/** Reads "CNR A RD/B ST SUBURB" (either road may be a route number: "CNR MAIN RD/C287 SUBURB") from the tokens after the last CNR. */
function readIntersection(tokens: string[], localities: LocalityIndex | undefined): StreetMatch | null {
  const slash = tokens.indexOf("/");
  if (slash < 1 || !isCornerStreet(tokens.slice(0, slash))) return null;
  const rest = tokens.slice(slash + 1);
  let second: StreetMatch | null;
  if (ROUTE_NUMBER.test(rest[0] ?? "")) {
    const place = readSuburb(rest.slice(1), localities);
    second = place && { street: rest[0]!, ...place };
  } else second = readStreetAndSuburb(rest, localities, 0);
  if (!second) return null;
  const first = tokens.slice(0, slash).join(" ");
  return { ...second, street: `CNR ${first} / ${second.street}` };
}

/** Splits text into tokens; a slash between words ("RD/B") becomes its own token, a unit slash ("3/14") stays. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.split(/\s+/)) {
    if (raw === "") continue;
    if (!raw.includes("/") || HOUSE_NUMBER.test(raw)) {
      tokens.push(raw);
      continue;
    }
    raw.split(/(\/+)/).forEach((part) => {
      if (part === "") return;
      tokens.push(/^\/+$/.test(part) ? "/" : part);
    });
  }
  return tokens;
}

/** Reads a street (or intersection) and suburb that end the region; null when unsure. */
function readRegion(region: string, localities: LocalityIndex | undefined): StreetMatch | null {
  const tokens = tokenize(region);
  const corner = tokens.lastIndexOf("CNR");
  return corner >= 0
    ? readIntersection(tokens.slice(corner + 1), localities)
    : readStreetAndSuburb(tokens, localities);
}

/** Cuts a cross street that runs on into other text after its street type; null when it has no type. */
function cutAfterType(piece: string): string | null {
  const tokens = piece.split(" ");
  const at = (types: Set<string>) => tokens.findIndex((token, i) => i > 0 && types.has(token));
  const typeAt = at(TYPE_ABBREVIATIONS) > 0 ? at(TYPE_ABBREVIATIONS) : at(TYPE_WORDS);
  if (typeAt < 0) return null;
  const end = STREET_SUFFIXES.has(tokens[typeAt + 1] ?? "") ? typeAt + 2 : typeAt + 1;
  return tokens.slice(0, end).join(" ");
}

/** Reads the cross streets between the anchor marker and the map/grid reference, "[" or the end. */
function readCrossStreets(text: string, from: number, boundaries: number[]): string[] {
  const ends = boundaries.filter((index) => index > from);
  const structured = ends.length > 0;
  const to = structured ? Math.min(...ends) : text.length;
  const pieces = text
    .slice(from, to)
    .split(/\s*\/+\s*/)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "");
  // The last one may run on into unit codes when no map or grid reference closes it.
  const last = pieces.pop();
  if (last !== undefined) {
    const cut = cutAfterType(last) ?? (structured ? last : null);
    if (cut) pieces.push(cut);
  }
  return pieces;
}

/** Reads the coordinates of "LAT/LON:-37.29, 144.42"; null when absent or out of range. */
function readCoordinates(text: string): { latitude: number; longitude: number } | null {
  const match = LAT_LON.exec(text);
  if (!match) return null;
  const latitude = Number(match[1]);
  const longitude = Number(match[2]);
  return validCoordinates(latitude, longitude) ? { latitude, longitude } : null;
}

const validCoordinates = (latitude: number | null, longitude: number | null): boolean =>
  latitude !== null &&
  longitude !== null &&
  Number.isFinite(latitude) &&
  Number.isFinite(longitude) &&
  Math.abs(latitude) <= 90 &&
  Math.abs(longitude) <= 180;

/**
 * Reads the address, cross streets, map and grid references and coordinates from a Victorian pager
 * message. With `localities` a suburb must be one of them (strict: no link rather than a false one);
 * without, suburbs are read by word shape.
 */
export function extractAddress(rawText: string, localities?: LocalityIndex): ExtractedAddress {
  const withoutPrefix = displayText(rawText ?? "").toUpperCase();
  const coordinates = readCoordinates(withoutPrefix);
  const spaced = (withoutPrefix.includes("LAT") ? withoutPrefix.replace(ALL_LAT_LON, " ") : withoutPrefix)
    .replace(/\s+/g, " ")
    .trim();
  // The corner pattern is long; most messages have no corner.
  const text = spaced.includes("CNR") ? spaced.replace(SPACED_CORNER, "CNR $1/") : spaced;

  const mapMatch = MAP_REFERENCE.exec(text);
  const gridMatch = GRID_REFERENCE.exec(text);
  const mapAt = mapMatch?.index ?? -1;
  const gridAt = gridMatch?.index ?? -1;
  const referenceAt = mapAt >= 0 ? mapAt : gridAt >= 0 ? gridAt : text.length;
  const bracketAt = text.indexOf("[");

  let found: StreetMatch | null = null;
  let crossStreets: string[] = [];
  const markers = [...text.matchAll(CROSS_MARKER)].filter((marker) => marker.index < referenceAt);
  if (markers.length > 0) {
    let previous = 0;
    for (const marker of markers) {
      found = readRegion(text.slice(0, marker.index), localities);
      if (found) {
        const boundaries = [mapAt, gridAt, bracketAt].filter((index) => index >= 0);
        crossStreets = readCrossStreets(text, marker.index, boundaries);
        break;
      }
      // Only skip a slash inside the free text, never one after something that looks like a street.
      if (tokenize(text.slice(previous, marker.index)).some(isType)) break;
      previous = marker.index + marker[0].length;
    }
  } else if (referenceAt < text.length) {
    found = readRegion(text.slice(0, referenceAt), localities);
  } else if (localities) {
    // No reference closes the suburb ("... 22 UNDERWOOD ST GOLDEN SQUARE [BENS]"); a known locality
    // must then fill the rest up to the paged unit or the end.
    found = readRegion(text.slice(0, bracketAt >= 0 ? bracketAt : text.length), localities);
  }

  const primary = found ? `${found.street}, ${found.suburb}` : null;
  const located = {
    primary_address: primary,
    latitude: coordinates?.latitude ?? null,
    longitude: coordinates?.longitude ?? null,
  };
  const directions = directionsUrl(located, found?.state);
  return {
    ...located,
    street: found?.street ?? null,
    suburb: found?.suburb ?? null,
    cross_streets: crossStreets,
    map_reference: mapMatch?.[0] ?? null,
    grid_reference: gridMatch?.[1] ?? null,
    has_mappable_address: directions !== null,
    directions_url: directions,
  };
}

/** Google Maps directions link (opens turn-by-turn navigation): coordinates when present, else the address. */
export function directionsUrl(
  address: { primary_address: string | null; latitude: number | null; longitude: number | null },
  state = "VIC",
): string | null {
  let destination: string | null = null;
  if (validCoordinates(address.latitude, address.longitude)) {
    destination = `${address.latitude},${address.longitude}`;
  } else {
    const primary = address.primary_address?.replace(/\s+/g, " ").trim();
    if (primary) {
      // Google reads intersections as "A & B"; "CNR A / B" is pager shorthand.
      const corner = /^CNR (.+?) \/ (.+)$/i.exec(primary);
      const place = corner ? `${corner[1]} & ${corner[2]}` : primary;
      destination = [place, state.trim(), "Australia"].filter((part) => part !== "").join(", ");
    }
  }
  return destination === null
    ? null
    : `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(destination)}`;
}
