import { MAX_UNITS_PER_AGENCY, nearestFirst, UNMAPPED_AGENCY, type UnitInput } from "@turnout/domain";
import { and, asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, capcodes, unitCapcodes, units, userAgencies, users, userUnits } from "../../db/schema.js";
import { badRequest, conflict, notFound } from "../../errors.js";
import { recordAdminAction } from "../../shared/admin-actions.js";
import type { Actor } from "../../shared/guard.js";
import { escapeLike, locate, placeColumns, unitPlace } from "../../shared/unit-places.js";
import { summary, type UnitRow, type UnitSummary, unitsOfUser, writeUserUnits } from "../../shared/units.js";

const isUniqueViolation = (err: unknown) => {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === "23505") return true;
  return false;
};

async function findAgency(db: Database, agencyId: number) {
  const [agency] = await db.select().from(agencies).where(eq(agencies.id, agencyId));
  if (!agency) throw notFound("Agency not found.");
  return agency;
}

async function findUnit(db: Database, unitId: number): Promise<UnitRow> {
  const [unit] = await db.select().from(units).where(eq(units.id, unitId));
  if (!unit) throw notFound("Unit not found.");
  return unit;
}

/** An agency's units with their capcodes and how many members each has, by name (admin). */
export async function listAgencyUnits(db: Database, agencyId: number) {
  await findAgency(db, agencyId);
  const rows = await db.select().from(units).where(eq(units.agencyId, agencyId)).orderBy(asc(units.name));
  const ids = rows.map((u) => u.id);
  const [members, paged] = ids.length
    ? await Promise.all([
        db
          .select({ unitId: userUnits.unitId, n: count() })
          .from(userUnits)
          .where(inArray(userUnits.unitId, ids))
          .groupBy(userUnits.unitId),
        db
          .select({
            unitId: unitCapcodes.unitId,
            id: capcodes.id,
            capcode: capcodes.capcode,
            alias: capcodes.alias,
          })
          .from(unitCapcodes)
          .innerJoin(capcodes, eq(capcodes.id, unitCapcodes.capcodeId))
          // A deleted capcode's number is gone ('#id'); it keeps serving its units (setUnitCapcodes).
          .where(and(inArray(unitCapcodes.unitId, ids), isNull(capcodes.deletedAt)))
          .orderBy(asc(capcodes.capcode)),
      ])
    : [[], []];
  const memberCount = new Map(members.map((m) => [m.unitId, Number(m.n)]));
  return rows.map((u) => ({
    unit: u,
    memberCount: memberCount.get(u.id) ?? 0,
    capcodes: paged.filter((p) => p.unitId === u.id).map(({ unitId: _, ...c }) => c),
  }));
}

/** Adds a unit to an agency. 404 for an unknown agency, 409 for a name it already has, 400 for an unknown place. */
export async function createUnit(
  ctx: ServiceContext,
  actor: Actor,
  agencyId: number,
  input: UnitInput,
  meta: RequestMeta,
): Promise<UnitRow> {
  const agency = await findAgency(ctx.db, agencyId);
  // UNMAPPED holds capcodes nobody has placed yet: no brigade is paged on them.
  if (agency.code === UNMAPPED_AGENCY.code)
    throw badRequest("Units belong to a real agency, not to UNMAPPED.");
  const place = await unitPlace(ctx.db, input, agencyId);
  const [{ n }] = (await ctx.db.select({ n: count() }).from(units).where(eq(units.agencyId, agencyId))) as [
    { n: number },
  ];
  if (Number(n) >= MAX_UNITS_PER_AGENCY)
    throw conflict(`An agency may have at most ${MAX_UNITS_PER_AGENCY} units.`);
  try {
    return await ctx.db.transaction(async (tx) => {
      const [unit] = await tx
        .insert(units)
        .values({ agencyId, name: input.name, code: input.code ?? null, ...placeColumns(place) })
        .returning();
      await recordAdminAction(tx, actor, meta.ip, {
        type: "admin_unit_changed",
        message: `Admin #${actor.userId} added unit '${input.name}' to ${agency.code}`,
        details: { unit_id: unit!.id, agency_id: agencyId },
      });
      return unit!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`${agency.name} already has a unit named '${input.name}'.`);
    throw err;
  }
}

/** Renames or moves a unit (its place as createUnit reads it). 404 unknown, 409 duplicate name. */
export async function updateUnit(
  ctx: ServiceContext,
  actor: Actor,
  unitId: number,
  input: UnitInput,
  meta: RequestMeta,
): Promise<UnitRow> {
  const before = await findUnit(ctx.db, unitId);
  const place = await unitPlace(ctx.db, input, before.agencyId);
  try {
    return await ctx.db.transaction(async (tx) => {
      const [unit] = await tx
        .update(units)
        .set({ name: input.name, code: input.code ?? null, ...placeColumns(place), updatedAt: new Date() })
        .where(eq(units.id, unitId))
        .returning();
      await recordAdminAction(tx, actor, meta.ip, {
        type: "admin_unit_changed",
        message: `Admin #${actor.userId} changed unit '${before.name}'`,
        details: { unit_id: unitId, name: input.name },
      });
      return unit!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`That agency already has a unit named '${input.name}'.`);
    throw err;
  }
}

/** Deletes a unit; its members go back to their whole agency's view. 404 unknown. */
export async function deleteUnit(ctx: ServiceContext, actor: Actor, unitId: number, meta: RequestMeta) {
  const unit = await findUnit(ctx.db, unitId);
  const members = await ctx.db.transaction(async (tx) => {
    const memberRows = await tx
      .select({ userId: userUnits.userId })
      .from(userUnits)
      .where(eq(userUnits.unitId, unitId));
    await tx.delete(units).where(eq(units.id, unitId));
    await recordAdminAction(tx, actor, meta.ip, {
      type: "admin_unit_changed",
      message: `Admin #${actor.userId} deleted unit '${unit.name}'`,
      details: { unit_id: unitId, members: memberRows.length },
    });
    return memberRows.map((m) => m.userId);
  });
  for (const userId of members) ctx.live.userAccessChanged(userId);
}

/**
 * Makes `capcodeIds` the capcodes a unit is paged on. Each must be one of the unit's agency's capcodes
 * and not deleted (400 naming the others). A deleted capcode the unit had stays with it, as its
 * alerts stay with the agency: the admin's list no longer shows it, so it cannot be chosen again.
 * Members' open pages read their view again.
 */
export async function setUnitCapcodes(
  ctx: ServiceContext,
  actor: Actor,
  unitId: number,
  capcodeIds: number[],
  meta: RequestMeta,
): Promise<void> {
  const unit = await findUnit(ctx.db, unitId);
  const ids = [...new Set(capcodeIds)];
  const found = ids.length
    ? await ctx.db
        .select({ id: capcodes.id, agencyId: capcodes.agencyId, capcode: capcodes.capcode })
        .from(capcodes)
        .where(and(inArray(capcodes.id, ids), isNull(capcodes.deletedAt)))
    : [];
  const foreign = ids.filter((id) => found.find((c) => c.id === id)?.agencyId !== unit.agencyId);
  if (foreign.length > 0)
    throw badRequest(`A unit holds only its own agency's capcodes; not capcode id(s) ${foreign.join(", ")}.`);
  const members = await ctx.db.transaction(async (tx) => {
    const live = tx.select({ id: capcodes.id }).from(capcodes).where(isNull(capcodes.deletedAt));
    await tx
      .delete(unitCapcodes)
      .where(and(eq(unitCapcodes.unitId, unitId), inArray(unitCapcodes.capcodeId, live)));
    if (ids.length) await tx.insert(unitCapcodes).values(ids.map((capcodeId) => ({ unitId, capcodeId })));
    await recordAdminAction(tx, actor, meta.ip, {
      type: "admin_unit_changed",
      message: `Admin #${actor.userId} set the capcodes of unit '${unit.name}'`,
      details: { unit_id: unitId, capcodes: found.map((c) => c.capcode) },
    });
    return tx.select({ userId: userUnits.userId }).from(userUnits).where(eq(userUnits.unitId, unitId));
  });
  for (const m of members) ctx.live.userAccessChanged(m.userId);
}

/**
 * What a member's feed needs to offer its views (issue 26): their units, their agencies, and the view
 * the server reads by default ("units" once they chose any).
 */
export async function memberView(db: Database, userId: number) {
  const [mine, assigned] = await Promise.all([
    unitsOfUser(db, userId),
    db
      .select({ id: agencies.id, name: agencies.name, code: agencies.code })
      .from(userAgencies)
      .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
      .where(eq(userAgencies.userId, userId))
      .orderBy(asc(agencies.name)),
  ]);
  return { units: mine, agencies: assigned, default_view: mine.length > 0 ? "units" : "agencies" };
}

/** A user's units for the admin console. 404 for an unknown user. */
export async function userUnitsForAdmin(db: Database, userId: number): Promise<UnitSummary[]> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!user) throw notFound("User not found.");
  return unitsOfUser(db, userId);
}

/** Where a member said they live (registration's postcode, town and state). */
export async function homeOf(db: Database, userId: number) {
  const [home] = await db
    .select({ postcode: users.postcode, suburb: users.townName, state: users.stateName })
    .from(users)
    .where(eq(users.id, userId));
  return home ?? {};
}

/** A member chooses their own units (settings). 400 for a unit outside their agencies. */
export async function setOwnUnits(
  ctx: ServiceContext,
  actor: Actor,
  unitIds: number[],
): Promise<UnitSummary[]> {
  const changed = await ctx.db.transaction((tx) =>
    writeUserUnits(tx, actor.userId, unitIds, { addAgencies: false }),
  );
  if (changed) ctx.live.userAccessChanged(actor.userId);
  return unitsOfUser(ctx.db, actor.userId);
}

/** An admin sets a user's units; the units' agencies are assigned with them. 404 for an unknown user. */
export async function setUserUnits(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  unitIds: number[],
  meta: RequestMeta,
): Promise<UnitSummary[]> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId));
  if (!user) throw notFound("User not found.");
  const changed = await ctx.db.transaction(async (tx) => {
    const changed = await writeUserUnits(tx, userId, unitIds, { addAgencies: true });
    if (changed) {
      await recordAdminAction(tx, actor, meta.ip, {
        type: "admin_user_agencies_changed",
        message: `Admin #${actor.userId} changed the units of user #${userId}`,
        details: { unit_ids: unitIds },
        target: user,
      });
    }
    return changed;
  });
  if (changed) ctx.live.userAccessChanged(userId);
  return unitsOfUser(ctx.db, userId);
}

/** How many units to offer at once (nearest first). */
export const NEARBY_LIMIT = 20;

/**
 * Units of one agency (by id, or by code at registration) offered nearest `place` first, with their
 * distance; `name` narrows them to names containing it. Unknown agency: none.
 */
export async function unitsNear(
  db: Database,
  query: {
    agencyId?: number;
    agencyCode?: string;
    agencyIds?: number[];
    place?: { postcode?: string | null; suburb?: string | null; state?: string | null };
    name?: string;
  },
) {
  const from = query.place ? await locate(db, query.place) : null;
  const rows = await db
    .select({ unit: units, agencyName: agencies.name })
    .from(units)
    .innerJoin(agencies, eq(agencies.id, units.agencyId))
    .where(
      and(
        query.agencyId !== undefined ? eq(units.agencyId, query.agencyId) : undefined,
        query.agencyCode !== undefined
          ? sql`upper(${agencies.code}) = upper(${query.agencyCode})`
          : undefined,
        query.agencyIds !== undefined
          ? query.agencyIds.length
            ? inArray(units.agencyId, query.agencyIds)
            : sql`false`
          : undefined,
        query.name ? sql`${units.name} ILIKE ${`%${escapeLike(query.name)}%`}` : undefined,
      ),
    );
  const ordered = nearestFirst(
    rows.map((r) => ({ ...summary(r.unit, r.agencyName), ...placeOfRow(r.unit) })),
    from,
  );
  return ordered.slice(0, NEARBY_LIMIT);
}

function placeOfRow(u: UnitRow) {
  return { suburb: u.suburb, state: u.state, latitude: u.latitude, longitude: u.longitude };
}
