import type { Alert } from "../../api/alerts";
import type { AlertGroup } from "./alerts-api";

let nextId = 1000;

/** An alert as the server presents it; anything not given is plausible and unique. */
export function makeAlert(overrides: Partial<Alert> = {}): Alert {
  const id = overrides.id ?? nextId++;
  const at = overrides.created_at ?? new Date(Date.now() - 5 * 60_000).toISOString();
  return {
    id,
    type: "emergency",
    message: `@@ALERT F${240000 + id} STRUCTURE FIRE 12 MAIN ST GEELONG`,
    created_at: at,
    sent_at: at,
    received_at: at,
    agency_id: 2,
    agency_name: "Country Fire Authority",
    agency_code: "CFA",
    agency_logo_path: null,
    area: "Geelong",
    capcode: "0123456",
    has_mappable_address: false,
    primary_address: null,
    directions_url: null,
    job_number: null,
    group_id: null,
    ...overrides,
  };
}

/** A card of the grouped feed: one alert, or a job's messages (oldest first). */
export function makeGroup(...messages: Alert[]): AlertGroup {
  const oldestFirst = [...messages].sort((a, b) => a.id - b.id);
  const first = oldestFirst[0]!;
  return {
    job_number: first.job_number ?? null,
    group_id: first.group_id ?? null,
    messages: oldestFirst,
    primary_message: oldestFirst.find((m) => m.type === "emergency") ?? first,
    has_emergency: oldestFirst.some((m) => m.type === "emergency"),
    total_count: oldestFirst.length,
    is_grouped: oldestFirst.length > 1,
  };
}

/** A GET /alerts/search reply. */
export function feedPage(groups: AlertGroup[], nextCursor: string | null = null) {
  return {
    body: {
      success: true,
      data: groups,
      pagination: { has_more: nextCursor !== null, next_cursor: nextCursor },
    },
  };
}
