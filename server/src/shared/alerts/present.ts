import type { agencies, alerts } from "../../db/schema.js";

export type AlertRow = typeof alerts.$inferSelect;
export type AgencyRow = typeof agencies.$inferSelect;
/** A unit an alert was paged to (through one of its capcodes). */
export type AlertUnit = { id: number; name: string; agencyId: number };

/**
 * SPEC 3 'Alert' as one viewer sees it: `agency` is the agency through which this viewer receives
 * the alert (one of theirs, for a message paged to several agencies). Times: `sent_at` is the time
 * shown and ordered at (the pager's time, or the receipt time when the receiver gave none or an
 * insane one); `received_at` is when Turnout received it; SPEC 3's `created_at` equals `sent_at`, so a
 * client showing it shows the pager's time too. `units` are the units (issue 26) it was paged to that
 * this viewer may know of (those of their agencies; every one for admins); `is_machine` marks a
 * machine or test page.
 */
export function presentAlert(a: AlertRow, agency: AgencyRow | undefined, units: readonly AlertUnit[] = []) {
  return {
    id: a.id,
    type: a.type,
    message: a.message,
    created_at: a.sentAt.toISOString(),
    sent_at: a.sentAt.toISOString(),
    received_at: a.createdAt.toISOString(),
    agency_id: agency?.id ?? a.agencyId,
    agency_name: agency?.name ?? null,
    agency_code: agency?.code ?? null,
    agency_logo_path: agency?.logoPath ?? null,
    area: a.area,
    capcode: a.capcode,
    has_mappable_address: a.hasMappableAddress,
    primary_address: a.primaryAddress,
    directions_url: a.directionsUrl,
    job_number: a.jobNumber,
    group_id: a.groupId,
    units: units.map((u) => ({ id: u.id, name: u.name })),
    is_machine: a.isMachine,
  };
}

export type PresentedAlert = ReturnType<typeof presentAlert>;
