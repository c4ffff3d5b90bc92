// Alerts as one viewer sees them (their agency, their units), and pages folded into job groups (SPEC 3 'Alert group').
import { asc, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alerts } from "../../db/schema.js";
import { type AlertRow, type PresentedAlert, presentAlert } from "../../shared/alerts/present.js";
import { unitsOf } from "../../shared/alerts/recipients.js";
import type { Scope } from "../../shared/alerts/scope.js";
import { pageContext } from "./page-context.js";

/**
 * Presents alerts as this viewer sees them, dropping any the viewer may not read. For a message paged
 * to several agencies, the agency shown is the viewer's own (the primary one for admins in admin scope).
 */
export async function presentForViewer(
  db: Database,
  rows: AlertRow[],
  scope: Scope,
): Promise<PresentedAlert[]> {
  if (rows.length === 0) return [];
  // Recipients, units and agencies in one round trip (page-context.ts).
  const { recipients, unitsOfCapcode, agencies: agencyRows } = await pageContext(db, rows);
  const chosen = new Map<number, number>();
  for (const row of rows) {
    const ids = recipients.get(row.id)?.map((r) => r.agencyId) ?? [row.agencyId];
    const agencyId = scope.all
      ? ids.includes(row.agencyId)
        ? row.agencyId
        : ids[0]
      : ids.filter((id) => scope.agencyIds.includes(id)).sort((a, b) => a - b)[0];
    if (agencyId !== undefined) chosen.set(row.id, agencyId);
  }
  const viewerAgencies = scope.all ? null : scope.agencyIds;
  return rows
    .filter((r) => chosen.has(r.id))
    .map((r) =>
      presentAlert(
        r,
        agencyRows.get(chosen.get(r.id)!),
        unitsOf(recipients.get(r.id) ?? [], unitsOfCapcode, viewerAgencies),
      ),
    );
}

/** SPEC 3 'Alert group'. */
export function toGroup(jobNumber: string | null, messages: PresentedAlert[]) {
  const oldestFirst = [...messages].sort(
    (a, b) => Date.parse(a.sent_at) - Date.parse(b.sent_at) || a.id - b.id,
  );
  const primary = oldestFirst.find((m) => m.type === "emergency") ?? oldestFirst[0]!;
  return {
    job_number: jobNumber,
    group_id: primary.group_id,
    messages: oldestFirst,
    primary_message: primary,
    has_emergency: oldestFirst.some((m) => m.type === "emergency"),
    total_count: oldestFirst.length,
    is_grouped: oldestFirst.length > 1,
  };
}

/** Folds a page into groups, each at the position of its newest message, with every readable message of the job. */
export async function groupPage(db: Database, page: PresentedAlert[], scope: Scope) {
  const groupIds = [...new Set(page.map((a) => a.group_id).filter((g): g is number => g !== null))];
  const members = groupIds.length
    ? await db
        .select()
        .from(alerts)
        .where(inArray(alerts.groupId, groupIds))
        .orderBy(asc(alerts.sentAt), asc(alerts.id))
    : [];
  const presentedMembers = await presentForViewer(db, members, scope);
  const byGroup = new Map<number, PresentedAlert[]>();
  for (const m of presentedMembers) byGroup.set(m.group_id!, [...(byGroup.get(m.group_id!) ?? []), m]);
  const seen = new Set<number>();
  const out: ReturnType<typeof toGroup>[] = [];
  for (const alert of page) {
    if (alert.group_id === null) {
      out.push(toGroup(alert.job_number, [alert]));
    } else if (!seen.has(alert.group_id)) {
      seen.add(alert.group_id);
      out.push(toGroup(alert.job_number, byGroup.get(alert.group_id) ?? [alert]));
    }
  }
  return out;
}
