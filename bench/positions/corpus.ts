/**
 * Where the address corpus's jobs are placed (issue 34): the share of addressed messages placed at
 * street level (house, street or corner) with an address dataset loaded, and at suburb level without.
 *
 *   npx tsx bench/positions/corpus.ts
 *
 * The corpus is server/src/modules/ingest/address-corpus.ts (made-up pages in the real Victorian
 * grammar at real localities). Suburb coordinates come from the bundled locality data, read as the
 * server reads them. No real G-NAF extract can be fetched here, so the "dataset" is written for the
 * corpus: each corpus street in the suburb, spelt as GNAF Core spells it (full street type and suffix
 * words, "LYDIARD STREET SOUTH"), at the house's number and its neighbours. With a real extract, the
 * share is this one times its coverage of the streets paged; what this measures is the reading and
 * matching (pager abbreviations against a dataset's spelling, units, ranges, corners, highways).
 */
import {
  type AddressPoint,
  buildLocalityIndex,
  datasetPoint,
  extractAddress,
  type Gazetteer,
  type LatLon,
  placeAddress,
  streetParts,
  suburbKey,
} from "@turnout/domain";
import { ADDRESS_CORPUS } from "../../server/src/modules/ingest/address-corpus.js";
import { loadLocalities } from "../../server/src/shared/localities/localities.js";
import { machineLine } from "../support/machine.js";

const localities = loadLocalities();
const index = buildLocalityIndex(localities.map((l) => ({ name: l.suburb, state: l.state })));
const centres = new Map<string, LatLon>();
for (const l of localities) {
  const key = suburbKey(l.suburb);
  const latitude = Number(l.latitude);
  const longitude = Number(l.longitude);
  if (!l.latitude || !Number.isFinite(latitude) || !Number.isFinite(longitude)) continue;
  if (!centres.has(key) || l.state === "VIC") centres.set(key, { latitude, longitude });
}

// Pager abbreviations written out as GNAF Core writes street types and suffixes.
const FULL: Record<string, string> = {
  ST: "STREET",
  RD: "ROAD",
  AV: "AVENUE",
  AVE: "AVENUE",
  DR: "DRIVE",
  CT: "COURT",
  CRT: "COURT",
  CRES: "CRESCENT",
  CR: "CRESCENT",
  PDE: "PARADE",
  HWY: "HIGHWAY",
  FWY: "FREEWAY",
  LA: "LANE",
  LN: "LANE",
  PL: "PLACE",
  TCE: "TERRACE",
  BVD: "BOULEVARD",
  BLVD: "BOULEVARD",
  GR: "GROVE",
  GV: "GROVE",
  CL: "CLOSE",
  CCT: "CIRCUIT",
  ESP: "ESPLANADE",
  TRK: "TRACK",
  TRL: "TRAIL",
  SQ: "SQUARE",
  N: "NORTH",
  S: "SOUTH",
  E: "EAST",
  W: "WEST",
  NTH: "NORTH",
  STH: "SOUTH",
  MT: "MOUNT",
};
const gnafSpelling = (street: string) =>
  street
    .split(" ")
    .map((word, i, all) => (i === 0 && word === "ST" && all.length > 2 ? "SAINT" : (FULL[word] ?? word)))
    .join(" ");

/** The GNAF-spelt dataset for the corpus's streets: each street at its number and neighbours. */
function corpusDataset(): Map<string, AddressPoint[]> {
  const points = new Map<string, AddressPoint[]>();
  const add = (street: string, suburb: string, number: number | null, at: LatLon) => {
    const point = datasetPoint({ number: number === null ? null : String(number), street, suburb, ...at });
    if (!point.ok) return;
    const key = `${point.suburb}|${point.street}`;
    points.set(key, [...(points.get(key) ?? []), point]);
  };
  for (const [text] of ADDRESS_CORPUS) {
    const address = extractAddress(text, index);
    if (!address.street || !address.suburb) continue;
    const centre = centres.get(suburbKey(address.suburb));
    if (!centre) continue;
    const raw = address.street.replace(/^(UNIT|FLAT|SHOP|LOT) \S+ |^U\d+\S* /, "");
    const corner = /^CNR (.+?) \/ (.+)$/.exec(raw);
    if (corner) {
      add(gnafSpelling(corner[1]!), address.suburb, 1, centre);
      add(gnafSpelling(corner[2]!), address.suburb, 2, { ...centre, latitude: centre.latitude + 0.0003 });
      continue;
    }
    const parts = streetParts(raw);
    if (parts?.kind !== "street") continue;
    const name = raw.replace(/^\S*\d\S* /, "");
    for (const offset of [-2, 0, 2]) {
      const n = parts.number === null ? 10 + offset : parts.number + offset;
      if (n > 0)
        add(gnafSpelling(name), address.suburb, n, {
          ...centre,
          latitude: centre.latitude + offset / 10_000,
        });
    }
  }
  return points;
}

function gazetteer(dataset: Map<string, AddressPoint[]>): Gazetteer {
  return {
    suburb: (name) => centres.get(name) ?? null,
    street: (street, suburb) => dataset.get(`${suburb}|${street}`) ?? [],
  };
}

async function measure(dataset: Map<string, AddressPoint[]>) {
  const counts = { coordinates: 0, street: 0, intersection: 0, suburb: 0, none: 0 };
  const g = gazetteer(dataset);
  for (const [text, destination] of ADDRESS_CORPUS) {
    if (destination === "") continue;
    const position = await placeAddress(extractAddress(text, index), g);
    counts[position?.precision ?? "none"]++;
  }
  return counts;
}

const addressed = ADDRESS_CORPUS.filter(([, destination]) => destination !== "").length;
const pct = (n: number) => `${((100 * n) / addressed).toFixed(1)} %`;
const started = performance.now();
const without = await measure(new Map());
const dataset = corpusDataset();
const withDataset = await measure(dataset);
const ms = performance.now() - started;
const row = (label: string, c: typeof without) =>
  `| ${label} | ${c.coordinates} (${pct(c.coordinates)}) | ${c.street} (${pct(c.street)}) | ${c.intersection} (${pct(c.intersection)}) | ${c.suburb} (${pct(c.suburb)}) | ${c.none} (${pct(c.none)}) |`;
console.log(machineLine());
console.log(
  `${ADDRESS_CORPUS.length} corpus messages, ${addressed} with an address; dataset: ${dataset.size} streets; ${ms.toFixed(0)} ms`,
);
console.log("| | coordinates | street | intersection | suburb | not placed |");
console.log("| --- | --- | --- | --- | --- | --- |");
console.log(row("no dataset (bundled localities)", without));
console.log(row("GNAF-spelt dataset of the corpus streets", withDataset));
