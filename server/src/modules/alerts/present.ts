import type { agencies, alerts } from "../../db/schema.js";

export type AlertRow = typeof alerts.$inferSelect;
export type AgencyRow = typeof agencies.$inferSelect;

/**
 * SPEC 3 'Alert' as one viewer sees it: `agency` is the agency through which this viewer receives
 * the alert (one of theirs, for a message paged to several agencies). Times: `sent_at` is the time
 * shown and ordered at (the pager's time, or the receipt time when the receiver gave none or an
 * insane one); `received_at` is when Turnout received it; SPEC 3's `created_at` equals `sent_at`, so a
 * client showing it shows the pager's time too.
 */
export function presentAlert(a: AlertRow, agency: AgencyRow | undefined, groupSize?: number) {
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
    ...(groupSize === undefined ? {} : { group_size: groupSize }),
  };
}

export type PresentedAlert = ReturnType<typeof presentAlert>;
