import { type ReceiverState, receiverHealth } from "@turnout/domain";
import { and, count, eq, gt, inArray, isNotNull, sql } from "drizzle-orm";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import { agencies, systemLogs } from "../db/schema.js";
import { raisedDeliveryAlarms } from "./delivery-alarms.js";
import { expectedAgencies, listReceiverRows } from "./receivers.js";

/**
 * What the health card says about receivers and the delivery side (issue 33), from the states the
 * checker last stored (what admins were told): a down receiver that is the only one for an agency is
 * critical, other receiver problems and raised delivery alarms are warnings, and so are errors people's
 * apps reported in the last hour.
 */
export async function monitorHealthInputs(db: Database, config: Config["monitor"]) {
  const rows = await listReceiverRows(db);
  const agencyMap = await expectedAgencies(db, rows);
  const agencyIds = [...new Set([...agencyMap.values()].flat())];
  const names = new Map(
    agencyIds.length
      ? (
          await db
            .select({ id: agencies.id, code: agencies.code })
            .from(agencies)
            .where(inArray(agencies.id, agencyIds))
        ).map((a) => [a.id, a.code])
      : [],
  );
  return {
    receivers: receiverHealth(
      rows.map((r) => ({
        id: r.id,
        name: r.name,
        state: r.state as ReceiverState,
        agencyIds: agencyMap.get(r.id) ?? [],
      })),
      (id) => names.get(id) ?? `agency ${id}`,
    ),
    deliveryAlarms: await raisedDeliveryAlarms(db, config),
    appErrorsLastHour: await appErrorsLastHour(db),
  };
}

/**
 * Errors signed-in people's apps reported in the last hour (POST /api/client-errors writes them): an
 * anonymous report is logged but does not count, or anyone could put a warning on the health card.
 */
async function appErrorsLastHour(db: Database): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(systemLogs)
    .where(
      and(
        eq(systemLogs.level, "error"),
        gt(systemLogs.timestamp, sql`now() - interval '1 hour'`),
        eq(systemLogs.category, "web"),
        isNotNull(sql`${systemLogs.details}->>'user_id'`),
      ),
    );
  return Number(row?.n ?? 0);
}
