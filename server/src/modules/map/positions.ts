import {
  type AddressPoint,
  extractAddress,
  type Gazetteer,
  type LatLon,
  type Position,
  placeAddress,
  suburbKey,
} from "@turnout/domain";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { addressPoints, alertPositions, alerts } from "../../db/schema.js";
import { addressLocalities, bundledLocalities } from "../../shared/localities/address-localities.js";

/** A street has at most this many points read for placing (the longest roads of a suburb). */
const STREET_POINTS_MAX = 5_000;
/** How long "is a dataset loaded?" is believed: the loading command runs in another process. */
const DATASET_CHECK_MS = 60_000;

type SuburbCentres = Map<string, LatLon>;
const datasetChecks = new WeakMap<Database, { at: number; loaded: Promise<boolean> }>();

let suburbCentres: SuburbCentres | null = null;

/**
 * The suburbs' coordinates from the bundled locality data (what the `postcodes` table is seeded
 * from), read in memory once per process: by suburbKey, a name several states share at its VIC place
 * when it has one (as extractAddress reads suburbs), a name with several postcodes at its first with
 * coordinates. Not from the table: seeding and reading it on the first page held the database for
 * seconds, and the live event of that page with it.
 */
function loadSuburbCentres(): SuburbCentres {
  if (suburbCentres) return suburbCentres;
  const rows = [...bundledLocalities()].sort((a, b) => a.postcode.localeCompare(b.postcode));
  const centres = new Map<string, LatLon & { state: string }>();
  for (const row of rows) {
    const latitude = Number(row.latitude);
    const longitude = Number(row.longitude);
    if (!row.latitude || !row.longitude || !Number.isFinite(latitude) || !Number.isFinite(longitude))
      continue;
    if (latitude === 0 && longitude === 0) continue;
    const key = suburbKey(row.suburb);
    const known = centres.get(key);
    if (!known || (row.state === "VIC" && known.state !== "VIC")) {
      centres.set(key, { latitude, longitude, state: row.state });
    }
  }
  suburbCentres = new Map(
    [...centres].map(([key, { latitude, longitude }]) => [key, { latitude, longitude }]),
  );
  return suburbCentres;
}

/** Whether an address dataset is loaded (checked at most once a minute). */
export function hasAddressDataset(db: Database, now = Date.now()): Promise<boolean> {
  const known = datasetChecks.get(db);
  if (known && now - known.at < DATASET_CHECK_MS) return known.loaded;
  const loaded = db
    .select({ id: addressPoints.id })
    .from(addressPoints)
    .limit(1)
    .then((rows) => rows.length > 0);
  datasetChecks.set(db, { at: now, loaded });
  loaded.catch(() => datasetChecks.delete(db));
  return loaded;
}

/** Forget what hasAddressDataset believes (after loading a dataset in this process). */
export function forgetAddressDataset(db: Database): void {
  datasetChecks.delete(db);
}

/** The gazetteer placing reads on this database: suburbs from `postcodes`, streets from `address_points`. */
export async function databaseGazetteer(db: Database): Promise<Gazetteer> {
  const centres = loadSuburbCentres();
  const withDataset = await hasAddressDataset(db);
  return {
    suburb: (suburb) => centres.get(suburb) ?? null,
    street: async (street, suburb): Promise<AddressPoint[]> => {
      if (!withDataset) return [];
      return db
        .select({
          number: addressPoints.number,
          latitude: addressPoints.latitude,
          longitude: addressPoints.longitude,
        })
        .from(addressPoints)
        .where(and(eq(addressPoints.suburb, suburb), eq(addressPoints.street, street)))
        .orderBy(asc(addressPoints.number))
        .limit(STREET_POINTS_MAX);
    },
  };
}

/** The position of a pager message's text (its address read against the bundled localities). */
export async function positionOfText(text: string, gazetteer: Gazetteer): Promise<Position | null> {
  return placeAddress(extractAddress(text, addressLocalities()), gazetteer);
}

/**
 * Places these alerts (each by its displayed text) and stores their positions; an alert placed before
 * is placed again (after a dataset was loaded). Returns how many were placed, by precision.
 */
export async function placeAlerts(
  db: Database,
  rows: readonly { id: number; message: string }[],
): Promise<Record<Position["precision"], number>> {
  const counts = { coordinates: 0, street: 0, intersection: 0, suburb: 0 };
  if (rows.length === 0) return counts;
  const gazetteer = await databaseGazetteer(db);
  const values: (typeof alertPositions.$inferInsert)[] = [];
  for (const row of rows) {
    const position = await positionOfText(row.message, gazetteer);
    if (!position) continue;
    counts[position.precision]++;
    values.push({ alertId: row.id, ...position });
  }
  if (values.length) {
    await db
      .insert(alertPositions)
      .values(values)
      .onConflictDoUpdate({
        target: alertPositions.alertId,
        set: {
          latitude: sql`excluded.latitude`,
          longitude: sql`excluded.longitude`,
          precision: sql`excluded.precision`,
          placedAt: sql`now()`,
        },
      });
  }
  return counts;
}

/**
 * Places every stored alert (`all`), or only those without a position yet, in batches: for the
 * operator's command after loading a dataset. Returns the counts by precision and how many were read.
 */
export async function placeStoredAlerts(
  db: Database,
  options: { all: boolean; batch?: number; onBatch?: (done: number) => void },
): Promise<{ read: number; placed: Record<Position["precision"], number> }> {
  const batch = options.batch ?? 1_000;
  const placed = { coordinates: 0, street: 0, intersection: 0, suburb: 0 };
  let read = 0;
  let after = 0;
  for (;;) {
    const rows = await db
      .select({ id: alerts.id, message: alerts.message })
      .from(alerts)
      .leftJoin(alertPositions, eq(alertPositions.alertId, alerts.id))
      .where(
        options.all
          ? sql`${alerts.id} > ${after}`
          : and(sql`${alerts.id} > ${after}`, isNull(alertPositions.alertId)),
      )
      .orderBy(asc(alerts.id))
      .limit(batch);
    if (rows.length === 0) break;
    const counts = await placeAlerts(db, rows);
    for (const key of Object.keys(placed) as (keyof typeof placed)[]) placed[key] += counts[key];
    read += rows.length;
    after = rows.at(-1)!.id;
    options.onBatch?.(read);
  }
  return { read, placed };
}
