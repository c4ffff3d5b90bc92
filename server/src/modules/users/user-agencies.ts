import { and, eq, inArray } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import { userAgencies } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import type { Actor } from "../../shared/guard.js";
import { type AgencyRow, findUser, listUserAgencies } from "./queries.js";
import { assertAssignableAgencies, recordAdminAction } from "./service.js";

/**
 * Replaces, adds to or removes from a user's agencies, then moves their live sockets to match.
 * Agencies kept keep their place (the first assigned is the primary agency).
 */
async function changeUserAgencies(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  meta: RequestMeta,
  change: (current: number[]) => number[],
): Promise<AgencyRow[]> {
  const changed = await ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, userId, true);
    const current = (
      await tx.select({ id: userAgencies.agencyId }).from(userAgencies).where(eq(userAgencies.userId, userId))
    ).map((r) => r.id);
    const next = [...new Set(change(current))];
    const added = next.filter((id) => !current.includes(id));
    const removed = current.filter((id) => !next.includes(id));
    if (added.length === 0 && removed.length === 0) return false;
    await assertAssignableAgencies(tx, added);
    if (removed.length > 0) {
      await tx
        .delete(userAgencies)
        .where(and(eq(userAgencies.userId, userId), inArray(userAgencies.agencyId, removed)));
    }
    if (added.length > 0) {
      await tx.insert(userAgencies).values(added.map((agencyId) => ({ userId, agencyId })));
    }
    await recordAdminAction(tx, actor, meta, {
      type: "admin_user_agencies_changed",
      text: "changed the agencies of",
      target: user,
      details: { added, removed },
    });
    return true;
  });
  if (changed) ctx.live.userAccessChanged(userId);
  return listUserAgencies(ctx.db, userId);
}

/** Assigns one more agency. Throws 404 for an unknown user, 400 for an unknown or placeholder agency. */
export function addUserAgency(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  agencyId: number,
  meta: RequestMeta,
): Promise<AgencyRow[]> {
  return changeUserAgencies(ctx, actor, userId, meta, (current) => [...current, agencyId]);
}

/** Makes `agencyIds` the user's whole set. Throws 404 for an unknown user, 400 for an unknown agency. */
export function setUserAgencies(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  agencyIds: number[],
  meta: RequestMeta,
): Promise<AgencyRow[]> {
  return changeUserAgencies(ctx, actor, userId, meta, (current) => [
    ...current.filter((id) => agencyIds.includes(id)),
    ...agencyIds,
  ]);
}

/** Removes one agency. Throws 404 for an unknown user or an agency the user does not have. */
export async function removeUserAgency(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  agencyId: number,
  meta: RequestMeta,
): Promise<AgencyRow[]> {
  const current = await listUserAgencies(ctx.db, userId);
  if (!current.some((a) => a.id === agencyId)) throw notFound("That agency is not assigned to this user.");
  return changeUserAgencies(ctx, actor, userId, meta, (ids) => ids.filter((id) => id !== agencyId));
}
