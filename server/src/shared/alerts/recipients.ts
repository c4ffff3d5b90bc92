// An alert's recipients (capcodes and their agencies) and the units they serve.
import { inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alertRecipients } from "../../db/schema.js";
import type { AlertUnit } from "./present.js";

/** Every agency each alert was paged to (through its capcodes), by alert id. */
export async function recipientAgenciesByAlert(
  db: Database,
  alertIds: number[],
): Promise<Map<number, number[]>> {
  const byAlert = new Map<number, number[]>();
  for (const [alertId, recipients] of await recipientsByAlert(db, alertIds))
    byAlert.set(
      alertId,
      recipients.map((r) => r.agencyId),
    );
  return byAlert;
}

/** Every recipient (capcode and its agency) of each alert, by alert id. */
export async function recipientsByAlert(
  db: Database,
  alertIds: number[],
): Promise<Map<number, { agencyId: number; capcodeId: number }[]>> {
  const byAlert = new Map<number, { agencyId: number; capcodeId: number }[]>();
  if (alertIds.length === 0) return byAlert;
  const recipients = await db
    .select({
      alertId: alertRecipients.alertId,
      agencyId: alertRecipients.agencyId,
      capcodeId: alertRecipients.capcodeId,
    })
    .from(alertRecipients)
    .where(inArray(alertRecipients.alertId, alertIds));
  for (const { alertId, ...r } of recipients) byAlert.set(alertId, [...(byAlert.get(alertId) ?? []), r]);
  return byAlert;
}

/** The units an alert's recipients serve, within `agencyIds` (null: any agency), each once, by name. */
export function unitsOf(
  recipients: readonly { capcodeId: number }[],
  unitsOfCapcode: ReadonlyMap<number, readonly AlertUnit[]>,
  agencyIds: readonly number[] | null,
): AlertUnit[] {
  const found = new Map<number, AlertUnit>();
  for (const r of recipients)
    for (const unit of unitsOfCapcode.get(r.capcodeId) ?? [])
      if (agencyIds === null || agencyIds.includes(unit.agencyId)) found.set(unit.id, unit);
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}
