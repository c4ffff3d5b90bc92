// A member's units as other parts read them: their units, their unit view, units by capcode and by name, and writing a member's units in the caller's transaction (sign-up, admin).
import { type UnitViewScope, unitViewScope } from "@turnout/domain";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { agencies, unitCapcodes, units, userAgencies, userUnits } from "../db/schema.js";
import { badRequest } from "../errors.js";

export type UnitRow = typeof units.$inferSelect;
/** A unit as a member's lists show it. */
export type UnitSummary = {
  id: number;
  name: string;
  code: string | null;
  agency_id: number;
  agency_name: string;
};

/** The units a user belongs to, by agency then name. */
export async function unitsOfUser(db: Database, userId: number): Promise<UnitSummary[]> {
  const rows = await db
    .select({ unit: units, agencyName: agencies.name })
    .from(userUnits)
    .innerJoin(units, eq(units.id, userUnits.unitId))
    .innerJoin(agencies, eq(agencies.id, units.agencyId))
    .where(eq(userUnits.userId, userId))
    .orderBy(asc(agencies.name), asc(units.name));
  return rows.map((r) => summary(r.unit, r.agencyName));
}

export function summary(unit: UnitRow, agencyName: string): UnitSummary {
  return { id: unit.id, name: unit.name, code: unit.code, agency_id: unit.agencyId, agency_name: agencyName };
}

/**
 * Writes a user's units inside the caller's transaction: each must exist and, unless
 * `addAgencies`, be one of the user's agencies (400 otherwise); with `addAgencies` (an admin) the units'
 * agencies are assigned too. Resolves to whether anything changed.
 */
export async function writeUserUnits(
  tx: Database,
  userId: number,
  unitIds: readonly number[],
  options: { addAgencies: boolean },
): Promise<boolean> {
  const wanted = unitIds.length
    ? await tx
        .select()
        .from(units)
        .where(inArray(units.id, [...unitIds]))
    : [];
  const missing = unitIds.filter((id) => !wanted.some((u) => u.id === id));
  if (missing.length > 0) throw badRequest(`Unknown unit id(s): ${missing.join(", ")}.`);
  const assigned = (
    await tx.select({ id: userAgencies.agencyId }).from(userAgencies).where(eq(userAgencies.userId, userId))
  ).map((r) => r.id);
  const outside = [...new Set(wanted.map((u) => u.agencyId))].filter((id) => !assigned.includes(id));
  if (outside.length > 0) {
    if (!options.addAgencies)
      throw badRequest("You can only choose units of the agencies you are assigned to.");
    await tx.insert(userAgencies).values(outside.map((agencyId) => ({ userId, agencyId })));
  }
  const current = (
    await tx.select({ id: userUnits.unitId }).from(userUnits).where(eq(userUnits.userId, userId))
  ).map((r) => r.id);
  const added = unitIds.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !unitIds.includes(id));
  if (removed.length)
    await tx.delete(userUnits).where(and(eq(userUnits.userId, userId), inArray(userUnits.unitId, removed)));
  if (added.length) await tx.insert(userUnits).values(added.map((unitId) => ({ userId, unitId })));
  return added.length > 0 || removed.length > 0 || outside.length > 0;
}

/** A member's unit view (domain unitViewScope) over their visible agencies, with the capcodes of their units. */
export async function unitViewOf(
  db: Database,
  userId: number,
  visibleAgencyIds: readonly number[],
): Promise<UnitViewScope & { capcodeIds: number[] }> {
  const mine = await db
    .select({ id: units.id, agency_id: units.agencyId })
    .from(userUnits)
    .innerJoin(units, eq(units.id, userUnits.unitId))
    .where(eq(userUnits.userId, userId));
  const scope = unitViewScope(visibleAgencyIds, mine);
  const capcodeIds = scope.unitIds.length
    ? (
        await db
          .selectDistinct({ id: unitCapcodes.capcodeId })
          .from(unitCapcodes)
          .where(inArray(unitCapcodes.unitId, [...scope.unitIds]))
      ).map((r) => r.id)
    : [];
  return { ...scope, capcodeIds };
}

/** The units each capcode serves (for presenting alerts and routing them to unit rooms). */
export async function unitsByCapcode(
  db: Database,
  capcodeIds: readonly number[],
): Promise<Map<number, { id: number; name: string; agencyId: number }[]>> {
  const byCapcode = new Map<number, { id: number; name: string; agencyId: number }[]>();
  if (capcodeIds.length === 0) return byCapcode;
  const rows = await db
    .select({ capcodeId: unitCapcodes.capcodeId, id: units.id, name: units.name, agencyId: units.agencyId })
    .from(unitCapcodes)
    .innerJoin(units, eq(units.id, unitCapcodes.unitId))
    .where(inArray(unitCapcodes.capcodeId, [...new Set(capcodeIds)]))
    .orderBy(asc(units.name));
  for (const { capcodeId, ...unit } of rows)
    byCapcode.set(capcodeId, [...(byCapcode.get(capcodeId) ?? []), unit]);
  return byCapcode;
}

/**
 * The capcodes of each member's units, by member and then agency; only agencies in which the member
 * chose units are keys (a unit without capcodes gives an empty set: their units' view of that agency
 * is empty, not the whole agency). What push and keyword rules read (domain OwnerUnitCapcodes).
 */
export async function unitCapcodesByMember(
  db: Database,
  userIds: readonly number[],
): Promise<Map<number, Map<number, Set<number>>>> {
  const byMember = new Map<number, Map<number, Set<number>>>();
  if (userIds.length === 0) return byMember;
  const rows = await db
    .select({ userId: userUnits.userId, agencyId: units.agencyId, capcodeId: unitCapcodes.capcodeId })
    .from(userUnits)
    .innerJoin(units, eq(units.id, userUnits.unitId))
    .leftJoin(unitCapcodes, eq(unitCapcodes.unitId, units.id))
    .where(inArray(userUnits.userId, [...new Set(userIds)]));
  for (const r of rows) {
    const byAgency = byMember.get(r.userId) ?? new Map<number, Set<number>>();
    const set = byAgency.get(r.agencyId) ?? new Set<number>();
    if (r.capcodeId !== null) set.add(r.capcodeId);
    byAgency.set(r.agencyId, set);
    byMember.set(r.userId, byAgency);
  }
  return byMember;
}

/**
 * The ids of units named in agencies (matched without regard to case), creating the missing ones when
 * `create` (each placed as createUnit places a unit named so); `created` lists those missing either way.
 * Keys are unitNameKey's.
 */
