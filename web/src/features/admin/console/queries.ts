import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../../../api/client";

/** The badges refresh with the monitor, once a minute. */
const BADGE_REFRESH_MS = 60_000;

function pendingFrom(reply: unknown): number {
  const data = (reply as { data?: { overview?: { pending_alerts?: unknown } } } | null)?.data;
  const pending = data?.overview?.pending_alerts;
  return typeof pending === "number" && Number.isFinite(pending) ? pending : 0;
}

export const consoleKeys = {
  pendingUserAlerts: () => ["admin", "user-alerts", "pending-count"] as const,
};

export function pendingUserAlertsQueryOptions() {
  return queryOptions({
    queryKey: consoleKeys.pendingUserAlerts(),
    queryFn: async ({ signal }) =>
      pendingFrom(
        await api.get<unknown>("/admin/user-alerts/stats/overview", { signal, handlesForbidden: true }),
      ),
    refetchInterval: BADGE_REFRESH_MS,
    retry: false,
  });
}

/** How many user alert rules wait for review (the User Alerts badge); 0 until known. */
export function usePendingUserAlerts(enabled: boolean): number {
  return useQuery({ ...pendingUserAlertsQueryOptions(), enabled }).data ?? 0;
}
