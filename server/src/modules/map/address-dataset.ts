import { createReadStream } from "node:fs";
import path from "node:path";
import { type DatasetAddress, datasetPoint } from "@turnout/domain";
import { parse } from "csv-parse";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { addressPoints } from "../../db/schema.js";
import { forgetAddressDataset } from "./positions.js";

/**
 * Header names (lower case) each field of an address is read from, first found wins: G-NAF (the
 * GNAF Core extract's NUMBER_FIRST, STREET_NAME, STREET_TYPE, STREET_SUFFIX, LOCALITY_NAME, STATE,
 * LATITUDE, LONGITUDE) and OpenStreetMap address extracts (addr:housenumber, addr:street,
 * addr:suburb or addr:city, addr:state, lat, lon) alike.
 */
export const DATASET_COLUMNS = {
  number: ["number_first", "number", "housenumber", "house_number", "addr:housenumber"],
  street: ["street", "addr:street", "street_name"],
  streetType: ["street_type", "street_type_code"],
  streetSuffix: ["street_suffix", "street_suffix_code"],
  suburb: ["locality_name", "locality", "suburb", "addr:suburb", "addr:city"],
  state: ["state", "state_abbreviation", "addr:state"],
  latitude: ["latitude", "lat", "y"],
  longitude: ["longitude", "lon", "lng", "long", "x"],
} as const;

type Field = keyof typeof DATASET_COLUMNS;
const REQUIRED: Field[] = ["street", "suburb", "latitude", "longitude"];
const INSERT_BATCH = 2_000;

export type DatasetLoad = {
  source: string;
  /** Rows stored. */
  loaded: number;
  /** Rows left out, by reason ("no street", "coordinates outside Australia"...). */
  skipped: Record<string, number>;
};

/** Which column each field is in; throws naming the fields no header gives. */
export function datasetColumns(header: readonly string[]): Partial<Record<Field, number>> {
  const lower = header.map((name) => name.trim().toLowerCase());
  const at: Partial<Record<Field, number>> = {};
  for (const field of Object.keys(DATASET_COLUMNS) as Field[]) {
    const index = DATASET_COLUMNS[field].map((name) => lower.indexOf(name)).find((i) => i >= 0);
    if (index !== undefined) at[field] = index;
  }
  const missing = REQUIRED.filter((field) => at[field] === undefined);
  if (missing.length) {
    throw new Error(
      `The file's header has no column for ${missing.join(", ")} (looked for ${missing
        .map((field) => DATASET_COLUMNS[field].join(" or "))
        .join("; ")}).`,
    );
  }
  return at;
}

/** The address of one record, by the columns datasetColumns found. */
export function datasetAddress(
  record: readonly string[],
  at: Partial<Record<Field, number>>,
): DatasetAddress {
  const cell = (field: Field) => (at[field] === undefined ? "" : (record[at[field]!] ?? "").trim());
  const street = [cell("street"), cell("streetType"), cell("streetSuffix")]
    .filter((part) => part !== "")
    .join(" ");
  return {
    number: cell("number") || null,
    street: street || null,
    suburb: cell("suburb") || null,
    latitude: cell("latitude") === "" ? Number.NaN : Number(cell("latitude")),
    longitude: cell("longitude") === "" ? Number.NaN : Number(cell("longitude")),
  };
}

/**
 * Loads an address extract (CSV with a header; `|`-separated like GNAF Core works too) into
 * `address_points`, replacing an earlier load of a file of the same name, in one transaction: a
 * failed load leaves the earlier one in place. Never fetches anything: the operator downloads the
 * extract. `state` fills rows whose file has no state column.
 */
export async function loadAddressDataset(
  db: Database,
  file: string,
  options: { state?: string; onProgress?: (loaded: number) => void } = {},
): Promise<DatasetLoad> {
  const source = path.basename(file);
  const skipped: Record<string, number> = {};
  let loaded = 0;
  const firstLine = await readFirstLine(file);
  const delimiter = firstLine.includes("|") && !firstLine.includes(",") ? "|" : ",";
  await db.transaction(async (tx) => {
    await tx.delete(addressPoints).where(eq(addressPoints.source, source));
    const parser = createReadStream(file).pipe(
      parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true }),
    );
    let at: Partial<Record<Field, number>> | null = null;
    let batch: (typeof addressPoints.$inferInsert)[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await tx.insert(addressPoints).values(batch);
      loaded += batch.length;
      batch = [];
      options.onProgress?.(loaded);
    };
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!at) {
        at = datasetColumns(record);
        continue;
      }
      const point = datasetPoint(datasetAddress(record, at));
      if (!point.ok) {
        skipped[point.reason] = (skipped[point.reason] ?? 0) + 1;
        continue;
      }
      const state = (at.state === undefined ? options.state : record[at.state]?.trim()) || options.state;
      batch.push({
        state: state ? state.toUpperCase().slice(0, 3) : null,
        suburb: point.suburb,
        street: point.street,
        number: point.number,
        latitude: point.latitude,
        longitude: point.longitude,
        source,
      });
      if (batch.length >= INSERT_BATCH) await flush();
    }
    if (!at) throw new Error("The file is empty: it needs a header line and addresses.");
    await flush();
  });
  forgetAddressDataset(db);
  return { source, loaded, skipped };
}

/** Removes the addresses loaded from a file of this name; returns how many. */
export async function removeAddressDataset(db: Database, source: string): Promise<number> {
  const removed = await db
    .delete(addressPoints)
    .where(eq(addressPoints.source, path.basename(source)))
    .returning({ id: addressPoints.id });
  forgetAddressDataset(db);
  return removed.length;
}

async function readFirstLine(file: string): Promise<string> {
  const stream = createReadStream(file, { start: 0, end: 4095, encoding: "utf8" });
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text.split(/\r?\n/)[0] ?? "";
}
