import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { monitorApi } from "./monitor-api";
import type { LogLevelFilter } from "./monitor-types";

/** The monitor refreshes every minute (SPEC 9). */
export const MONITOR_REFRESH_MS = 60_000;

/**
 * The first loads are spread out (SPEC 9) so opening the monitor does not fire five requests at once:
 * the health (the whole dashboard), then the system metrics, sessions, messages and logs.
 */
export const MONITOR_STAGGER_MS = {
  health: 0,
  metrics: 100,
  sessions: 200,
  messages: 300,
  logs: 400,
} as const;

export const monitorKeys = {
  all: ["admin", "system"] as const,
  dashboard: () => [...monitorKeys.all, "dashboard"] as const,
  metrics: () => [...monitorKeys.all, "metrics"] as const,
  sessions: () => [...monitorKeys.all, "sessions"] as const,
  messages: () => [...monitorKeys.all, "messages"] as const,
  logs: (level: LogLevelFilter) => [...monitorKeys.all, "logs", level] as const,
};

// A failed load is not retried at once: the next minute's refresh is the retry, and meanwhile the
// card keeps its last figures and says they are stale. A figure younger than the refresh period is
// not asked for again when the monitor opens (the dashboard prefetched at sign-in counts).
const shared = { retry: false, staleTime: MONITOR_REFRESH_MS - 5_000, refetchInterval: MONITOR_REFRESH_MS };

export function systemDashboardQueryOptions() {
  return queryOptions({
    queryKey: monitorKeys.dashboard(),
    queryFn: ({ signal }) => monitorApi.dashboard(signal),
    ...shared,
  });
}

export function systemMetricsQueryOptions() {
  return queryOptions({
    queryKey: monitorKeys.metrics(),
    queryFn: ({ signal }) => monitorApi.metrics(signal),
    ...shared,
  });
}

export function sessionMetricsQueryOptions() {
  return queryOptions({
    queryKey: monitorKeys.sessions(),
    queryFn: ({ signal }) => monitorApi.sessions(signal),
    ...shared,
  });
}

export function messageMetricsQueryOptions() {
  return queryOptions({
    queryKey: monitorKeys.messages(),
    queryFn: ({ signal }) => monitorApi.messages(signal),
    ...shared,
  });
}

export function systemLogsQueryOptions(level: LogLevelFilter) {
  return queryOptions({
    queryKey: monitorKeys.logs(level),
    queryFn: ({ signal }) => monitorApi.logs(level, signal),
    ...shared,
  });
}

/** Clear every system log, then load the logs afresh. */
export function useClearLogs() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => monitorApi.clearLogs(),
    onSettled: () =>
      queryClient.invalidateQueries({ queryKey: [...monitorKeys.all, "logs"], refetchType: "active" }),
  });
}
