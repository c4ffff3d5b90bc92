// The receivers as stored (issue 33): read by the receivers module, the health card and /metrics.
import { asc, desc, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { capcodes, receivers } from "../db/schema.js";

export type ReceiverRow = typeof receivers.$inferSelect;

/** Receivers not deleted, the legacy one first. */
export function listReceiverRows(db: Database) {
  return db
    .select()
    .from(receivers)
    .where(isNull(receivers.deletedAt))
    .orderBy(desc(sql`${receivers.kind} = 'legacy'`), asc(receivers.name), asc(receivers.id));
}

/** The agencies each receiver is expected to hear: its own, and those of its expected capcodes. */
export async function expectedAgencies(
  db: Database,
  rows: readonly ReceiverRow[],
): Promise<Map<number, number[]>> {
  const allCapcodes = [...new Set(rows.flatMap((r) => r.expectedCapcodes))];
  const byCapcode = new Map<string, number>();
  if (allCapcodes.length > 0) {
    const found = await db
      .select({ capcode: capcodes.capcode, agencyId: capcodes.agencyId })
      .from(capcodes)
      .where(inArray(capcodes.capcode, allCapcodes));
    for (const c of found) byCapcode.set(c.capcode, c.agencyId);
  }
  return new Map(
    rows.map((r) => [
      r.id,
      [
        ...new Set([
          ...r.expectedAgencyIds,
          ...r.expectedCapcodes.flatMap((c) => (byCapcode.has(c) ? [byCapcode.get(c)!] : [])),
        ]),
      ],
    ]),
  );
}
