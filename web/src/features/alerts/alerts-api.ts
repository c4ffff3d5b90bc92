import { ALERT_PAGE_SIZE, type AlertType } from "@turnout/domain";
import { z } from "zod";
import { api } from "../../api/client";

const id = z.union([z.number(), z.string()]);

/** One alert as the server presents it (SPEC 3 'Alert'), tolerant of absent optional fields. */
export const alertSchema = z.object({
  id: z.number(),
  type: z.string().nullish(),
  message: z.string(),
  /** SPEC 3: the time shown; the server sends the pager's time here, as in sent_at. */
  created_at: z.string(),
  /** The pager's time (the receipt time when the receiver gave none or an insane one). */
  sent_at: z.string().nullish(),
  /** When the server received it: later than sent_at for a page replayed from a receiver's spool. */
  received_at: z.string().nullish(),
  agency_id: id.nullish(),
  agency_name: z.string().nullish(),
  agency_code: z.string().nullish(),
  agency_logo_path: z.string().nullish(),
  area: z.string().nullish(),
  capcode: z.string().nullish(),
  has_mappable_address: z.boolean().nullish(),
  primary_address: z.string().nullish(),
  directions_url: z.string().nullish(),
  job_number: z.string().nullish(),
  group_id: z.number().nullish(),
  /** Issue 26: a machine or test page (TIMEUPDATE...): never answered, never rung. Absent: false. */
  is_machine: z.boolean().nullish(),
  /** Issue 26: the units it was paged to among the viewer's agencies. Absent: none. */
  units: z.array(z.object({ id: z.union([z.number(), z.string()]), name: z.string() })).nullish(),
});
export type Alert = z.infer<typeof alertSchema>;

/** The time an alert is shown, ordered and shared at: when it was paged (created_at from older servers). */
export function alertTime(alert: Pick<Alert, "sent_at" | "created_at">): string {
  return alert.sent_at ?? alert.created_at;
}

/** SPEC 3 'Alert group': one job's messages, oldest first. */
export const alertGroupSchema = z.object({
  job_number: z.string().nullish(),
  group_id: z.number().nullish(),
  messages: z.array(alertSchema).min(1),
  primary_message: alertSchema,
  has_emergency: z.boolean(),
  total_count: z.number(),
  is_grouped: z.boolean(),
});
export type AlertGroup = z.infer<typeof alertGroupSchema>;

const alertPageSchema = z.object({
  data: z.array(alertGroupSchema),
  pagination: z.object({ has_more: z.boolean(), next_cursor: z.string().nullish() }),
});
export type AlertPage = z.infer<typeof alertPageSchema>;

/** The feed filters of the chips bar; all of them go to the server as query parameters. */
export interface FeedFilters {
  search: string;
  type: AlertType | null;
  area: string | null;
  agency: { id: string; name: string } | null;
}

export const NO_FILTERS: FeedFilters = { search: "", type: null, area: null, agency: null };

/** How the feed is read: `adminContext` (admins) covers every agency, UNMAPPED included. */
export interface FeedOptions {
  adminContext?: boolean;
}

/** An agency the user may show or hide (GET /user-filters/available). */
export const filterableAgencySchema = z.object({
  filter_value: z.string(),
  name: z.string(),
  code: z.string().nullish(),
});
export type FilterableAgency = z.infer<typeof filterableAgencySchema>;

/** One saved user filter (SPEC 3 'User filter'). */
export const userFilterSchema = z.object({
  id: id,
  filter_type: z.string(),
  filter_value: z.string(),
  is_enabled: z.boolean(),
});
export type UserFilter = z.infer<typeof userFilterSchema>;

const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const alertsApi = {
  /** One page of the feed, newest first, jobs folded into groups (GET /alerts/search?grouped=true). */
  async searchAlerts(
    filters: FeedFilters,
    cursor: string | null,
    signal?: AbortSignal,
    options: FeedOptions = {},
  ): Promise<AlertPage> {
    const reply = await api.get("/alerts/search", {
      signal,
      query: {
        limit: ALERT_PAGE_SIZE,
        grouped: true,
        search: filters.search.trim() || undefined,
        type: filters.type ?? undefined,
        area: filters.area ?? undefined,
        agency_id: filters.agency?.id,
        cursor: cursor ?? undefined,
        admin_context: options.adminContext ? true : undefined,
      },
    });
    return alertPageSchema.parse(reply);
  },

  /** One alert for the job popup; the popup explains a 403 itself, so the general dialog stays away. */
  async getAlert(alertId: string, signal?: AbortSignal): Promise<Alert> {
    const reply = await api.get(`/alerts/${encodeURIComponent(alertId)}`, { signal, handlesForbidden: true });
    return z.object({ data: alertSchema }).parse(reply).data;
  },

  /** Every message of the alert's job, oldest first (the grouped-alert dialog). */
  async getAlertGroup(alertId: number, signal?: AbortSignal): Promise<AlertGroup> {
    const reply = await api.get(`/alerts/${alertId}/group`, { signal, handlesForbidden: true });
    return z.object({ data: alertGroupSchema }).parse(reply).data;
  },

  async listFilterableAgencies(signal?: AbortSignal): Promise<FilterableAgency[]> {
    return listOf(filterableAgencySchema).parse(await api.get("/user-filters/available", { signal })).data;
  },

  async listUserFilters(signal?: AbortSignal): Promise<UserFilter[]> {
    return listOf(userFilterSchema).parse(await api.get("/user-filters", { signal })).data;
  },

  /** Replaces every agency filter of the user at once (POST /user-filters/bulk). */
  async saveUserFilters(
    filters: Array<{ filter_type: "agency"; filter_value: string; is_enabled: boolean }>,
  ): Promise<void> {
    await api.post("/user-filters/bulk", { filters });
  },

  /** Any signed-in call; a 401 here raises the Session Ended dialog through the client. */
  async checkSession(): Promise<void> {
    await api.get("/auth/profile");
  },
};
