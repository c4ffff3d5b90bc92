import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { alertCacheKeys } from "../../api/alerts";
import { alertsApi, type FeedFilters, type FeedOptions } from "./alerts-api";

/** Query keys of the alerts feature; everything under `all` belongs to the signed-in user's feed. */
export const alertKeys = {
  all: alertCacheKeys.all,
  feeds: alertCacheKeys.feeds,
  feed: (userId: number | string, filters: FeedFilters, options: FeedOptions = {}) =>
    [...alertKeys.feeds(), String(userId), filters, { adminContext: options.adminContext === true }] as const,
  job: (alertId: string) => [...alertKeys.all, "job", alertId] as const,
  group: (alertId: number) => [...alertKeys.all, "group", alertId] as const,
  filterSettings: () => [...alertKeys.all, "filter-settings"] as const,
  memberView: () => [...alertKeys.all, "member-view"] as const,
};

/** The feed, page by page (50 cards, keyset cursor), for one user, one set of filters and one context. */
export function feedQueryOptions(userId: number | string, filters: FeedFilters, options: FeedOptions = {}) {
  return infiniteQueryOptions({
    queryKey: alertKeys.feed(userId, filters, options),
    queryFn: ({ pageParam, signal }) => alertsApi.searchAlerts(filters, pageParam, signal, options),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => (page.pagination.has_more ? (page.pagination.next_cursor ?? null) : null),
    // Not every loaded page again each time the network returns (ten requests for a member ten pages
    // down, on a network that comes and goes): the feed catches up on its first page itself, at once
    // when its live channel stayed up, else once the channel has joined its rooms again.
    refetchOnReconnect: false,
  });
}

/** How long a loaded job popup's answer is reused. */
const JOB_STALE_MS = 60_000;

/** One alert for the job popup; a 403 or 404 is an answer, not something to retry. */
export function jobQueryOptions(alertId: string) {
  return queryOptions({
    queryKey: alertKeys.job(alertId),
    queryFn: ({ signal }) => alertsApi.getAlert(alertId, signal),
    retry: false,
    // A job's details do not change: the popup mounting again (a re-render of the dashboard while it
    // opens, or the same job opened twice in a row) reuses the answer instead of asking again.
    staleTime: JOB_STALE_MS,
  });
}

/** Every message of a job, oldest first. */
export function groupQueryOptions(alertId: number) {
  return queryOptions({
    queryKey: alertKeys.group(alertId),
    queryFn: ({ signal }) => alertsApi.getAlertGroup(alertId, signal),
    retry: false,
  });
}

/** The agencies the user may show or hide, with the saved choice for each. */
export function filterSettingsQueryOptions() {
  return queryOptions({
    queryKey: alertKeys.filterSettings(),
    queryFn: async ({ signal }) => {
      const [agencies, filters] = await Promise.all([
        alertsApi.listFilterableAgencies(signal),
        alertsApi.listUserFilters(signal),
      ]);
      return { agencies, filters };
    },
    staleTime: 0,
  });
}

/** The member's units and agencies (issue 26): what the feed's view chips offer. */
export function memberViewQueryOptions() {
  return queryOptions({
    queryKey: alertKeys.memberView(),
    queryFn: ({ signal }) => alertsApi.getMemberView(signal),
    staleTime: 5 * 60_000,
  });
}
