import type { UnitRow } from "../../shared/units.js";
import type { listAgencyUnits, unitsNear } from "./service.js";

/** A unit as the admin console lists it: its place, capcodes and member count. */
export function presentAdminUnit({
  unit,
  memberCount,
  capcodes,
}: Awaited<ReturnType<typeof listAgencyUnits>>[number]) {
  return { ...presentUnitRow(unit), member_count: memberCount, capcodes };
}

/** A unit's own fields. */
export function presentUnitRow(u: UnitRow) {
  return {
    id: u.id,
    agency_id: u.agencyId,
    name: u.name,
    code: u.code,
    postcode: u.postcode,
    suburb: u.suburb,
    state: u.state,
    has_location: u.latitude !== null && u.longitude !== null,
  };
}

/** A unit offered to a member or at registration: where it is and how far, never its coordinates or members. */
export function presentNearbyUnit(u: Awaited<ReturnType<typeof unitsNear>>[number]) {
  return {
    id: u.id,
    name: u.name,
    code: u.code,
    agency_id: u.agency_id,
    agency_name: u.agency_name,
    suburb: u.suburb,
    state: u.state,
    distance_km: u.distance_km,
  };
}
