// The agencies a member hides from their feed (user filters), read by the feed, the live channel and agencies.
import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { userFilters } from "../db/schema.js";

const AGENCY = "agency";

/** Ids of the agencies the user chose to hide from their feed (for the alert search to leave out). */
export async function hiddenAgencyIds(db: Database, userId: number): Promise<number[]> {
  const rows = await db
    .select({ value: userFilters.filterValue })
    .from(userFilters)
    .where(
      and(
        eq(userFilters.userId, userId),
        eq(userFilters.filterType, AGENCY),
        eq(userFilters.isEnabled, false),
      ),
    );
  return rows.map((r) => Number(r.value)).filter((id) => Number.isSafeInteger(id) && id > 0);
}
