import type { Position } from "@turnout/domain";
import { inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alertPositions } from "../../db/schema.js";

// Where jobs are (issue 34): placed by the map module (modules/map/positions.ts), read by the feed,
// the map and the station boards.

/** The stored positions of these alerts, by alert id. */
export async function positionsOf(db: Database, ids: readonly number[]): Promise<Map<number, Position>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select()
    .from(alertPositions)
    .where(inArray(alertPositions.alertId, [...ids]));
  return new Map(
    rows.map((r) => [
      r.alertId,
      { latitude: r.latitude, longitude: r.longitude, precision: r.precision as Position["precision"] },
    ]),
  );
}
