// Where a unit is: the bundled locality (the postcodes table) its admin gave or its name names, for
// ordering units by distance; and units found or created by name (the capcode import's unit column).
import { type UnitInput, unitLocalityGuess } from "@turnout/domain";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { postcodes, units } from "../db/schema.js";
import { badRequest } from "../errors.js";
import { ensurePostcodesSeeded } from "./localities/postcodes-seed.js";

type Place = {
  postcode: string;
  suburb: string;
  state: string;
  latitude: number | null;
  longitude: number | null;
};

/** Text matched literally by LIKE / ILIKE. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const toNumber = (v: string | null) => {
  const n = v === null ? Number.NaN : Number(v);
  return Number.isFinite(n) ? n : null;
};

/** The bundled localities matching a postcode, a suburb (any case) and a state, each given or not. */
async function placesMatching(
  db: Database,
  where: { postcode?: string | null; suburb?: string | null; state?: string | null },
): Promise<Place[]> {
  await ensurePostcodesSeeded(db);
  const rows = await db
    .select()
    .from(postcodes)
    .where(
      and(
        where.postcode ? eq(postcodes.postcode, where.postcode) : undefined,
        // Any case: the data writes "Kangaroo Flat", members and unit names "KANGAROO FLAT".
        where.suburb ? sql`${postcodes.suburb} ILIKE ${escapeLike(where.suburb)}` : undefined,
        where.state ? eq(postcodes.state, where.state) : undefined,
      ),
    )
    .orderBy(asc(postcodes.suburb), asc(postcodes.state), asc(postcodes.postcode))
    .limit(50);
  return rows.map((r) => ({
    postcode: r.postcode,
    suburb: r.suburb,
    state: r.state,
    latitude: toNumber(r.latitude),
    longitude: toNumber(r.longitude),
  }));
}

/**
 * Where a place is, for ordering units by distance: the bundled locality of this postcode (and suburb
 * and state when given), or, for a postcode alone, its first locality. Null when nothing matches.
 */
export async function locate(
  db: Database,
  place: { postcode?: string | null; suburb?: string | null; state?: string | null },
): Promise<{ latitude: number; longitude: number } | null> {
  if (!place.postcode && !place.suburb) return null;
  let found = await placesMatching(db, place);
  // A member's town may be spelled differently from the data: the postcode alone still places them.
  if (found.length === 0 && place.postcode) found = await placesMatching(db, { postcode: place.postcode });
  const at = found.find((p) => p.latitude !== null && p.longitude !== null);
  return at ? { latitude: at.latitude!, longitude: at.longitude! } : null;
}

/**
 * A unit's place: the locality the admin gave (400 when it is not a bundled one, or when several
 * match), else the one its name names (unitLocalityGuess) when exactly one locality has that name, or
 * exactly one in the states where the agency's other units are (a CFA "Kangaroo Flat" is the Victorian
 * one, not New South Wales'), else none.
 */
export async function unitPlace(db: Database, input: UnitInput, agencyId: number): Promise<Place | null> {
  if (input.postcode || input.suburb) {
    const found = await placesMatching(db, input);
    if (found.length === 0)
      throw badRequest("Location not found: choose a postcode and suburb from the list.");
    const distinct = new Set(found.map((p) => `${p.postcode}|${p.suburb}|${p.state}`));
    if (distinct.size > 1 && !(input.postcode && input.suburb && input.state)) {
      throw badRequest("Several places match that location: give its postcode, suburb and state.");
    }
    return found[0]!;
  }
  const guess = unitLocalityGuess(input.name);
  if (!guess) return null;
  const found = await placesMatching(db, { suburb: guess });
  const byState = new Map(found.map((p) => [p.state, p]));
  if (byState.size === 1) return found[0]!;
  if (byState.size === 0) return null;
  const states = await db
    .selectDistinct({ state: units.state })
    .from(units)
    .where(and(eq(units.agencyId, agencyId), sql`${units.state} IS NOT NULL`));
  const agencyStates = states.map((r) => r.state).filter((st) => st !== null && byState.has(st));
  return agencyStates.length === 1 ? byState.get(agencyStates[0]!)! : null;
}

export function placeColumns(place: Place | null) {
  return {
    postcode: place?.postcode ?? null,
    suburb: place?.suburb ?? null,
    state: place?.state ?? null,
    latitude: place?.latitude ?? null,
    longitude: place?.longitude ?? null,
  };
}

export async function unitsNamed(
  tx: Database,
  wanted: readonly { agencyId: number; name: string }[],
  create: boolean,
): Promise<{ ids: Map<string, number>; created: { agencyId: number; name: string }[] }> {
  const key = unitNameKey;
  const ids = new Map<string, number>();
  const created: { agencyId: number; name: string }[] = [];
  if (wanted.length === 0) return { ids, created };
  const agencyIds = [...new Set(wanted.map((w) => w.agencyId))];
  for (const u of await tx.select().from(units).where(inArray(units.agencyId, agencyIds)))
    ids.set(key(u.agencyId, u.name), u.id);
  const missing = new Map<string, { agencyId: number; name: string }>();
  for (const w of wanted) if (!ids.has(key(w.agencyId, w.name))) missing.set(key(w.agencyId, w.name), w);
  for (const [k, w] of missing) {
    created.push(w);
    if (!create) continue;
    const place = await unitPlace(tx, { name: w.name }, w.agencyId);
    const [unit] = await tx
      .insert(units)
      .values({ agencyId: w.agencyId, name: w.name, ...placeColumns(place) })
      .returning({ id: units.id });
    ids.set(k, unit!.id);
  }
  return { ids, created };
}

/** How units are matched by name within an agency: case does not matter. */
export function unitNameKey(agencyId: number, name: string): string {
  return `${agencyId}:${name.toLowerCase()}`;
}
