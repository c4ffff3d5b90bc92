import { z } from "zod/mini";
import { type Alert, alertSchema } from "../../api/alerts";
import { api } from "../../api/client";
import {
  FEED_PAGE_PATH,
  type FeedFilters,
  type FeedOptions,
  feedPageQuery,
  MEMBER_VIEW_PATH,
} from "./feed-request";

export { type FeedFilters, type FeedOptions, NO_FILTERS } from "./feed-request";

const id = z.union([z.number(), z.string()]);

/** SPEC 3 'Alert group': one job's messages, oldest first. */
export const alertGroupSchema = z.object({
  job_number: z.nullish(z.string()),
  group_id: z.nullish(z.number()),
  messages: z.array(alertSchema).check(z.minLength(1)),
  primary_message: alertSchema,
  has_emergency: z.boolean(),
  total_count: z.number(),
  is_grouped: z.boolean(),
});
export type AlertGroup = z.infer<typeof alertGroupSchema>;

const alertPageSchema = z.object({
  data: z.array(alertGroupSchema),
  pagination: z.object({ has_more: z.boolean(), next_cursor: z.nullish(z.string()) }),
});
export type AlertPage = z.infer<typeof alertPageSchema>;

/** What a member's feed offers its views from (GET /units/mine): their units and agencies. */
export const memberViewSchema = z.object({
  units: z.array(z.object({ id: z.number(), name: z.string(), agency_id: z.number() })),
  agencies: z.array(z.object({ id: z.number(), name: z.string(), code: z.nullish(z.string()) })),
  default_view: z.string(),
});
export type MemberView = z.infer<typeof memberViewSchema>;

/** An agency the user may show or hide (GET /user-filters/available). */
export const filterableAgencySchema = z.object({
  filter_value: z.string(),
  name: z.string(),
  code: z.nullish(z.string()),
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

const listOf = <T extends z.ZodMiniType>(item: T) => z.object({ data: z.array(item) });

export const alertsApi = {
  /** One page of the feed, newest first, jobs folded into groups (GET /alerts/search?grouped=true). */
  async searchAlerts(
    filters: FeedFilters,
    cursor: string | null,
    signal?: AbortSignal,
    options: FeedOptions = {},
  ): Promise<AlertPage> {
    const reply = await api.get(FEED_PAGE_PATH, { signal, query: feedPageQuery(filters, cursor, options) });
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

  /** The member's units and agencies, for the feed's view chips. */
  async getMemberView(signal?: AbortSignal): Promise<MemberView> {
    return z.object({ data: memberViewSchema }).parse(await api.get(MEMBER_VIEW_PATH, { signal })).data;
  },

  /** Any signed-in call; a 401 here raises the Session Ended dialog through the client. */
  async checkSession(): Promise<void> {
    await api.get("/auth/profile");
  },
};
