import type { UserFilterInput } from "@turnout/domain";
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, userAgencies, userFilters } from "../../db/schema.js";
import { badRequest, notFound } from "../../errors.js";
import type { Actor } from "../../shared/guard.js";

type UserFilterRow = typeof userFilters.$inferSelect;
type AgencyRow = typeof agencies.$inferSelect;

const AGENCY = "agency";

/** The user's saved feed filters, oldest first. */
export async function listUserFilters(db: Database, actor: Actor): Promise<UserFilterRow[]> {
  return db
    .select()
    .from(userFilters)
    .where(eq(userFilters.userId, actor.userId))
    .orderBy(asc(userFilters.createdAt), asc(userFilters.id));
}

/** Agencies the user may show or hide: their own agencies, or every agency for an admin. */
export async function listFilterableAgencies(db: Database, actor: Actor): Promise<AgencyRow[]> {
  if (actor.isAdmin) return db.select().from(agencies).orderBy(asc(agencies.name), asc(agencies.id));
  const rows = await db
    .select({ agency: agencies })
    .from(userAgencies)
    .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
    .where(eq(userAgencies.userId, actor.userId))
    .orderBy(asc(agencies.name), asc(agencies.id));
  return rows.map((r) => r.agency);
}

/**
 * Saves one filter, replacing the user's earlier choice for the same agency.
 * Throws 400 when the agency is not one the user may filter.
 */
export async function saveUserFilter(
  db: Database,
  actor: Actor,
  input: UserFilterInput,
): Promise<UserFilterRow> {
  await assertFilterable(db, actor, [input]);
  const [row] = await db
    .insert(userFilters)
    .values({
      userId: actor.userId,
      filterType: input.filter_type,
      filterValue: input.filter_value,
      isEnabled: input.is_enabled,
    })
    .onConflictDoUpdate({
      target: [userFilters.userId, userFilters.filterType, userFilters.filterValue],
      set: { isEnabled: input.is_enabled, updatedAt: new Date() },
    })
    .returning();
  return row!;
}

/**
 * Replaces all of the user's agency filters with the given set in one transaction (an agency listed
 * twice keeps its last entry). Throws 400, changing nothing, when any agency is not one the user may filter.
 */
export async function replaceUserFilters(
  db: Database,
  actor: Actor,
  filters: UserFilterInput[],
): Promise<UserFilterRow[]> {
  await assertFilterable(db, actor, filters);
  const latest = [...new Map(filters.map((f) => [f.filter_value, f])).values()];
  return db.transaction(async (tx) => {
    await tx
      .delete(userFilters)
      .where(and(eq(userFilters.userId, actor.userId), eq(userFilters.filterType, AGENCY)));
    if (latest.length === 0) return [];
    return tx
      .insert(userFilters)
      .values(
        latest.map((f) => ({
          userId: actor.userId,
          filterType: f.filter_type,
          filterValue: f.filter_value,
          isEnabled: f.is_enabled,
        })),
      )
      .returning();
  });
}

/** Deletes one of the user's own filters. Throws 404 for an unknown id or someone else's filter. */
export async function deleteUserFilter(db: Database, actor: Actor, id: number): Promise<void> {
  const rows = await db
    .delete(userFilters)
    .where(and(eq(userFilters.id, id), eq(userFilters.userId, actor.userId)))
    .returning({ id: userFilters.id });
  if (rows.length === 0) throw notFound("Filter not found");
}

/** Deletes all of the user's filters, so every agency is back to its default; returns how many went. */
export async function resetUserFilters(db: Database, actor: Actor): Promise<number> {
  const rows = await db
    .delete(userFilters)
    .where(eq(userFilters.userId, actor.userId))
    .returning({ id: userFilters.id });
  return rows.length;
}

/** Deletes every user's filter naming an agency (called when the agency is deleted). */
export async function removeAgencyFilters(db: Database, agencyId: number): Promise<void> {
  await db
    .delete(userFilters)
    .where(and(eq(userFilters.filterType, AGENCY), eq(userFilters.filterValue, String(agencyId))));
}

async function assertFilterable(db: Database, actor: Actor, filters: UserFilterInput[]): Promise<void> {
  const allowed = new Set((await listFilterableAgencies(db, actor)).map((a) => String(a.id)));
  const refused = filters.find((f) => !allowed.has(f.filter_value));
  if (refused) {
    throw badRequest(`Agency ${refused.filter_value} is not one of your agencies.`, {
      fields: [{ field: "filter_value", message: "is not one of your agencies" }],
    });
  }
}
