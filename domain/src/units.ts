// Brigades and units (issue 26): an agency's capcodes grouped into the units members belong to.
// Agencies stay the access boundary; a unit narrows what a member sees, hears and answers by default.
import { z } from "zod/mini";
import { AU_STATE_CODES } from "./constants.js";

/** How a member's feed, live events, push and keyword rules are scoped: their units, or their whole agencies. */
export const FEED_VIEWS = ["units", "agencies"] as const;
export type FeedView = (typeof FEED_VIEWS)[number];

/** Most units one member may belong to. */
export const MAX_UNITS_PER_MEMBER = 20;
/** Most units one agency may have. */
export const MAX_UNITS_PER_AGENCY = 2000;

/** A member's units as a request sends them: distinct positive ids, at most MAX_UNITS_PER_MEMBER. */
export const unitIdsSchema = z.pipe(
  z
    .array(
      z.number("unit ids must be numbers").check(z.int(), z.positive("unit ids must be positive")),
      "unit_ids must be a list",
    )
    .check(z.maxLength(MAX_UNITS_PER_MEMBER, `Choose at most ${MAX_UNITS_PER_MEMBER} units`)),
  z.transform((ids) => [...new Set(ids)]),
);

/** Blank text as null. */
const blankAsNull = z.transform((v: string) => (v === "" ? null : v));

const optionalText = (label: string, max: number) =>
  z.nullish(
    z.pipe(
      z
        .string(`${label} must be text`)
        .check(z.trim(), z.maxLength(max, `${label} must be at most ${max} characters`)),
      blankAsNull,
    ),
  );

/** A unit as an admin writes it (POST /admin/agencies/{id}/units, PUT /admin/units/{id}). */
export const unitInputSchema = z.object({
  name: z
    .string("Name is required")
    .check(
      z.trim(),
      z.minLength(1, "Name is required"),
      z.maxLength(100, "Name must be at most 100 characters"),
    ),
  code: z.nullish(
    z.pipe(
      z
        .string("Code must be text")
        .check(
          z.trim(),
          z.toUpperCase(),
          z.maxLength(32, "Code must be at most 32 characters"),
          z.regex(/^[A-Z0-9_-]*$/, "Code may hold only letters, digits, '-' and '_'"),
        ),
      blankAsNull,
    ),
  ),
  postcode: z.nullish(
    z.pipe(
      z.string("Postcode must be text").check(z.trim(), z.regex(/^(\d{4})?$/, "Postcode must be 4 digits")),
      blankAsNull,
    ),
  ),
  suburb: optionalText("Suburb", 100),
  state: z.nullish(
    z.pipe(
      z.pipe(z.string("State must be text").check(z.trim(), z.toUpperCase()), blankAsNull),
      z.nullable(z.enum(AU_STATE_CODES, "Unknown state")),
    ),
  ),
});
export type UnitInput = z.output<typeof unitInputSchema>;

/**
 * What the unit view reads (issue 26): alerts paged to one of the member's units, and every alert of
 * each agency of theirs in which they chose no unit (a member who chose no unit at all sees their
 * agencies as before).
 */
export type UnitViewScope = { unitIds: readonly number[]; wholeAgencyIds: readonly number[] };

/** The unit view of a member of `agencyIds` who belongs to `units`: units outside those agencies do not count. */
export function unitViewScope(
  agencyIds: readonly number[],
  units: readonly { id: number; agency_id: number }[],
): UnitViewScope {
  const mine = units.filter((u) => agencyIds.includes(u.agency_id));
  const withUnits = new Set(mine.map((u) => u.agency_id));
  return {
    unitIds: mine.map((u) => u.id),
    wholeAgencyIds: agencyIds.filter((id) => !withUnits.has(id)),
  };
}

/**
 * Whether an alert as one viewer receives it belongs to their unit view: paged to one of their units,
 * or received through an agency they read whole.
 */
export function alertInUnitView(
  alert: { agency_id?: number | string | null; units?: readonly { id: number }[] | null },
  scope: UnitViewScope,
): boolean {
  if ((alert.units ?? []).some((u) => scope.unitIds.includes(u.id))) return true;
  const agency = Number(alert.agency_id);
  return Number.isSafeInteger(agency) && scope.wholeAgencyIds.includes(agency);
}

/** The chip that says which view is on: "My units: Kangaroo Flat" or "All of CFA". */
export function feedViewLabel(
  view: FeedView,
  units: readonly { name: string }[],
  agencies: readonly { name: string; code?: string | null }[],
): string {
  if (view === "units" && units.length > 0) {
    const names = units.map((u) => u.name);
    return `My units: ${names.length > 2 ? `${names.slice(0, 2).join(", ")} +${names.length - 2}` : names.join(", ")}`;
  }
  const labels = agencies.map((a) => a.code || a.name);
  return labels.length === 1 ? `All of ${labels[0]}` : "All my agencies";
}

/** Kilometres between two points on the Earth (haversine, mean radius 6371 km). */
export function distanceKm(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

type Placed = { name: string; latitude: number | null; longitude: number | null };

/**
 * Units nearest `from` first, each with its distance in whole kilometres; units without a position
 * (and every unit when `from` is unknown) follow by name.
 */
export function nearestFirst<T extends Placed>(
  units: readonly T[],
  from: { latitude: number; longitude: number } | null,
): (T & { distance_km: number | null })[] {
  const withDistance = units.map((u) => ({
    ...u,
    distance_km:
      from && u.latitude !== null && u.longitude !== null
        ? Math.round(distanceKm(from, { latitude: u.latitude, longitude: u.longitude }))
        : null,
  }));
  return withDistance.sort((a, b) => {
    if (a.distance_km !== null && b.distance_km !== null && a.distance_km !== b.distance_km)
      return a.distance_km - b.distance_km;
    if (a.distance_km === null && b.distance_km !== null) return 1;
    if (a.distance_km !== null && b.distance_km === null) return -1;
    return a.name.localeCompare(b.name);
  });
}

// What a unit's name says besides its place: "Kangaroo Flat Fire Brigade", "Bendigo SES Unit", "KANG FB".
const UNIT_NAME_NOISE =
  /\b(?:CFA|FRV|MFB|VICSES|SES|RFS|NSW|FIRE\s+AND\s+RESCUE|FIRE\s+RESCUE|FIRE\s+STATION|FIRE\s+BRIGADE|RURAL\s+FIRE\s+BRIGADE|BRIGADE|STATION|UNIT|GROUP|RFB|FB|RESCUE|FIRE|EMERG(?:ENCY)?|NON[-\s]?EMERG(?:ENCY)?|ADMIN)\b/g;

/**
 * The locality a unit's name probably names, upper-cased as the bundled localities are: the name
 * without agency words and service suffixes ("Kangaroo Flat Fire Brigade" -> "KANGAROO FLAT"); null
 * when nothing is left. A guess: the caller looks it up and uses it only when it finds one place.
 */
export function unitLocalityGuess(unitName: string): string | null {
  const words = unitName
    .toUpperCase()
    .replace(/[^A-Z' ]+/g, " ")
    .replace(UNIT_NAME_NOISE, " ")
    .replace(/\s+/g, " ")
    .trim();
  return words.length >= 3 ? words : null;
}
