import { z } from "zod/mini";

// What several features read of an alert: the map's jobs and the feed's cards share this schema, and
// the admin console refreshes the feeds after moving a capcode.

const id = z.union([z.number(), z.string()]);

/** One alert as the server presents it (SPEC 3 'Alert'), tolerant of absent optional fields. */
export const alertSchema = z.object({
  id: z.number(),
  type: z.nullish(z.string()),
  message: z.string(),
  /** SPEC 3: the time shown; the server sends the pager's time here, as in sent_at. */
  created_at: z.string(),
  /** The pager's time (the receipt time when the receiver gave none or an insane one). */
  sent_at: z.nullish(z.string()),
  /** When the server received it: later than sent_at for a page replayed from a receiver's spool. */
  received_at: z.nullish(z.string()),
  agency_id: z.nullish(id),
  agency_name: z.nullish(z.string()),
  agency_code: z.nullish(z.string()),
  agency_logo_path: z.nullish(z.string()),
  area: z.nullish(z.string()),
  capcode: z.nullish(z.string()),
  has_mappable_address: z.nullish(z.boolean()),
  primary_address: z.nullish(z.string()),
  directions_url: z.nullish(z.string()),
  job_number: z.nullish(z.string()),
  group_id: z.nullish(z.number()),
  /** The viewer's units it was paged to (issue 26). */
  units: z.nullish(z.array(z.object({ id: z.number(), name: z.string() }))),
  /** A machine or test page (TIMEUPDATE, pager tests): hidden unless asked for. */
  is_machine: z.nullish(z.boolean()),
});
export type Alert = z.infer<typeof alertSchema>;

/** The time an alert is shown, ordered and shared at: when it was paged (created_at from older servers). */
export function alertTime(alert: Pick<Alert, "sent_at" | "created_at">): string {
  return alert.sent_at ?? alert.created_at;
}

/** The roots of the alerts feature's query keys, for invalidating every feed from elsewhere. */
export const alertCacheKeys = {
  all: ["alerts"] as const,
  feeds: () => [...alertCacheKeys.all, "feed"] as const,
};
