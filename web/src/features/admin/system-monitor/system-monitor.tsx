import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import { keepPreviousData, type UseQueryResult, useQuery } from "@tanstack/react-query";
import { MESSAGES } from "@turnout/domain";
import { useEffect, useState } from "react";
import { isApiError } from "../../../api/errors";
import { HealthCard } from "./health-card";
import { LogsCard } from "./logs-card";
import {
  ApplicationCard,
  CacheCard,
  DatabaseCard,
  MediaQueueCard,
  MessagesCard,
  SessionsCard,
  SmsCard,
  SystemCard,
} from "./metric-cards";
import type { CardFreshness } from "./monitor-card";
import type { LogLevelFilter } from "./monitor-types";
import {
  MONITOR_STAGGER_MS,
  messageMetricsQueryOptions,
  sessionMetricsQueryOptions,
  systemDashboardQueryOptions,
  systemLogsQueryOptions,
  systemMetricsQueryOptions,
} from "./queries";

/** False until `delayMs` after mounting: holds a first load back for its slot of the stagger. */
function useStartAfter(delayMs: number): boolean {
  const [started, setStarted] = useState(delayMs === 0);
  useEffect(() => {
    if (delayMs === 0) return;
    const timer = window.setTimeout(() => setStarted(true), delayMs);
    return () => window.clearTimeout(timer);
  }, [delayMs]);
  return started;
}

/**
 * A card's figures: its own query's, else the dashboard's copy (prefetched at sign-in, so the card is
 * filled at once); failed when the card's own last load failed.
 */
function pick<T>(own: UseQueryResult<T>, fallback: T | undefined, fallbackAt: number) {
  const data = own.data ?? fallback;
  const freshness: CardFreshness = {
    hasData: data !== undefined,
    failed: own.isError,
    updatedAt: own.data !== undefined ? own.dataUpdatedAt : fallbackAt,
  };
  return { data, freshness };
}

/** The SPEC 6 refusal, for a user who is not (or no longer) an admin. */
export function MonitorAccessDenied() {
  return (
    <Alert severity="error">
      <AlertTitle>{MESSAGES.SYSTEM_MONITOR_DENIED}</AlertTitle>
      {MESSAGES.SYSTEM_MONITOR_ADMIN_REQUIRED}
    </Alert>
  );
}

/**
 * The System Monitor tab (SPEC 2 and 9): health, system, application, database, cache store,
 * sessions, messages, SMS service and system logs, each refreshed every minute after a staggered
 * first load. A failed refresh keeps the card's last figures and marks them stale.
 */
export function SystemMonitor() {
  const [level, setLevel] = useState<LogLevelFilter>("all");
  const dashboard = useQuery({
    ...systemDashboardQueryOptions(),
    enabled: useStartAfter(MONITOR_STAGGER_MS.health),
  });
  const metricsQuery = useQuery({
    ...systemMetricsQueryOptions(),
    enabled: useStartAfter(MONITOR_STAGGER_MS.metrics),
  });
  const sessionsQuery = useQuery({
    ...sessionMetricsQueryOptions(),
    enabled: useStartAfter(MONITOR_STAGGER_MS.sessions),
  });
  const messagesQuery = useQuery({
    ...messageMetricsQueryOptions(),
    enabled: useStartAfter(MONITOR_STAGGER_MS.messages),
  });
  const logsQuery = useQuery({
    ...systemLogsQueryOptions(level),
    // Another level keeps the list on screen until its own entries arrive.
    placeholderData: keepPreviousData,
    enabled: useStartAfter(MONITOR_STAGGER_MS.logs),
  });

  const queries = [dashboard, metricsQuery, sessionsQuery, messagesQuery, logsQuery];
  if (queries.some((query) => isApiError(query.error) && query.error.status === 403)) {
    return <MonitorAccessDenied />;
  }

  const whole = dashboard.data;
  const dashboardAt = dashboard.dataUpdatedAt;
  const metrics = pick(metricsQuery, whole?.metrics, dashboardAt);
  const sessions = pick(sessionsQuery, whole?.sessions, dashboardAt);
  const messages = pick(messagesQuery, whole?.messages, dashboardAt);
  // The dashboard's logs are the unfiltered newest ones: a stand-in for 'all' only.
  const logs = pick(logsQuery, level === "all" ? whole?.logs : undefined, dashboardAt);
  const dashboardFreshness: CardFreshness = {
    hasData: whole !== undefined,
    failed: dashboard.isError,
    updatedAt: dashboardAt,
  };

  return (
    <Box
      sx={{
        display: "grid",
        gap: 2,
        gridTemplateColumns: { xs: "1fr", md: "repeat(2, minmax(0, 1fr))", lg: "repeat(3, minmax(0, 1fr))" },
        alignItems: "start",
      }}
    >
      <HealthCard health={whole?.health} freshness={dashboardFreshness} />
      <SystemCard metrics={metrics.data} freshness={metrics.freshness} />
      <ApplicationCard metrics={metrics.data} freshness={metrics.freshness} />
      <DatabaseCard metrics={metrics.data} freshness={metrics.freshness} />
      <CacheCard metrics={metrics.data} freshness={metrics.freshness} />
      <SessionsCard sessions={sessions.data} freshness={sessions.freshness} />
      <MessagesCard messages={messages.data} freshness={messages.freshness} />
      <SmsCard sms={whole?.sms} freshness={dashboardFreshness} />
      <MediaQueueCard queue={whole?.mediaQueue} freshness={dashboardFreshness} />
      <LogsCard logs={logs.data} freshness={logs.freshness} level={level} onLevelChange={setLevel} />
    </Box>
  );
}
