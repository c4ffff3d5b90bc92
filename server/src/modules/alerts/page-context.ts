import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { arrayLiteral, jsonValue, rowFromJson, rowsOf } from "../../db/rows.js";
import { agencies } from "../../db/schema.js";
import type { AgencyRow, AlertRow, AlertUnit } from "../../shared/alerts/present.js";

/** What presenting a page of alerts reads beside the alerts' own rows. */
export type PageContext = {
  /** Every recipient (capcode and its agency) of each alert, by alert id. */
  recipients: Map<number, { agencyId: number; capcodeId: number }[]>;
  /** The units of each of those capcodes, by capcode id, by name. */
  unitsOfCapcode: Map<number, AlertUnit[]>;
  /** The agencies of those recipients and the alerts' own agencies, by id. */
  agencies: Map<number, AgencyRow>;
};

/**
 * The recipients, their units and the agencies of a page of alerts, in one query (one round trip):
 * asked as three (recipientsByAlert, unitsByCapcode and the agencies), they were a third of the CPU a
 * search or feed page cost the server beyond its query (bench/results/page-building.md). The same rows
 * as those three read: recipients in no particular order, units by name, agency rows whole.
 */
export async function pageContext(db: Database, rows: readonly AlertRow[]): Promise<PageContext> {
  const context: PageContext = { recipients: new Map(), unitsOfCapcode: new Map(), agencies: new Map() };
  if (rows.length === 0) return context;
  const alertIds = arrayLiteral(rows.map((r) => r.id));
  const ownAgencies = arrayLiteral([...new Set(rows.map((r) => r.agencyId))]);
  const [row] = rowsOf<{ recipients: unknown; units: unknown; agencies: unknown }>(
    await db.execute(sql`
      WITH r AS (
        SELECT alert_id, agency_id, capcode_id FROM alert_recipients WHERE alert_id = ANY(${alertIds}::bigint[])
      )
      SELECT
        (SELECT coalesce(json_agg(json_build_array(alert_id, agency_id, capcode_id)), '[]'::json) FROM r)
          AS recipients,
        (SELECT coalesce(json_agg(json_build_array(uc.capcode_id, u.id, u.name, u.agency_id) ORDER BY u.name), '[]'::json)
           FROM unit_capcodes uc JOIN units u ON u.id = uc.unit_id
          WHERE uc.capcode_id IN (SELECT capcode_id FROM r)) AS units,
        (SELECT coalesce(json_agg(to_jsonb(a)), '[]'::json) FROM agencies a
          WHERE a.id = ANY(${ownAgencies}::int[]) OR a.id IN (SELECT agency_id FROM r)) AS agencies`),
  );
  for (const [alertId, agencyId, capcodeId] of jsonValue<[number, number, number][]>(row!.recipients)) {
    const list = context.recipients.get(alertId);
    if (list) list.push({ agencyId, capcodeId });
    else context.recipients.set(alertId, [{ agencyId, capcodeId }]);
  }
  for (const [capcodeId, id, name, agencyId] of jsonValue<[number, number, string, number][]>(row!.units)) {
    const list = context.unitsOfCapcode.get(capcodeId);
    if (list) list.push({ id, name, agencyId });
    else context.unitsOfCapcode.set(capcodeId, [{ id, name, agencyId }]);
  }
  for (const json of jsonValue<Record<string, unknown>[]>(row!.agencies)) {
    const agency = rowFromJson(agencies, json);
    context.agencies.set(agency.id, agency);
  }
  return context;
}
