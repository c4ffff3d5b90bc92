// The feed's scope: which agencies a viewer reads, and the agency condition the indexes serve.
import { eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alerts, userAgencies } from "../../db/schema.js";
import type { Actor } from "../guard.js";
import { hiddenAgencyIds } from "../hidden-agencies.js";

/** The agencies a viewer may read: every agency for an admin in admin context, else their own. */
export type Scope = { all: true } | { all: false; agencyIds: number[] };

/** The agency ids assigned to a user. */
export async function assignedAgencyIds(db: Database, userId: number): Promise<number[]> {
  const rows = await db
    .select({ id: userAgencies.agencyId })
    .from(userAgencies)
    .where(eq(userAgencies.userId, userId));
  return rows.map((r) => r.id);
}

/** The feed's scope: admin context (admins only) sees everything; others their agencies minus hidden ones. */
export async function feedScope(
  db: Database,
  actor: Actor,
  adminContext: boolean | undefined,
): Promise<Scope> {
  if (adminContext && actor.isAdmin) return { all: true };
  const [assigned, hidden] = await Promise.all([
    assignedAgencyIds(db, actor.userId),
    hiddenAgencyIds(db, actor.userId),
  ]);
  return { all: false, agencyIds: assigned.filter((id) => !hidden.includes(id)) };
}

/**
 * Alerts paged to any of these agencies. alerts.agency_ids (migration 0006) is the recipients' agencies,
 * kept by a trigger on alert_recipients, so this equals an EXISTS on alert_recipients; unlike it, the GIN
 * index over (agency_ids, message) answers the scope and the search words together.
 */
export function pagedToAny(agencyIds: number[]): SQL {
  return sql`${alerts.agencyIds} && ARRAY[${sql.join(
    agencyIds.map((id) => sql`${id}`),
    sql`, `,
  )}]::integer[]`;
}
