import type { SessionUser } from "../../api/types";
import type { MockRoute } from "../mock-api";
import { testUser } from "../session-fixtures";

/** A signed-in admin (SPEC 3 User with is_admin). */
export const adminUser: SessionUser = {
  ...testUser,
  id: 1,
  first_name: "Alex",
  last_name: "Admin",
  is_admin: true,
};

export const DESKTOP_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
export const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

/** GET /admin/system/metrics `data`, as the contract of issue 11 shapes it, for a PGlite install. */
export function makeMetrics(overrides: { cpu?: number; memory?: number; node?: string } = {}) {
  return {
    system: {
      load_average: [0.42, 0.37, 0.3],
      cpu_usage: overrides.cpu ?? 23.4,
      total_cores: 8,
      cores: Array.from({ length: 8 }, (_, core_id) => ({ core_id, usage: 10 + core_id * 5 })),
      memory: {
        usage_percent: overrides.memory ?? 48.2,
        used: 8_283_750_400,
        total: 17_179_869_184,
        available: 8_896_118_784,
      },
      hostname: "turnout-01",
      platform: "linux",
      host_uptime: 3 * 86_400_000 + 4 * 3_600_000 + 12 * 60_000,
    },
    application: {
      version: "1.4.0",
      environment: "development",
      port: 3000,
      process_id: 4242,
      node_version: overrides.node ?? "v20.18.0",
      memory_usage: { heapUsed: 52_428_800, heapTotal: 83_886_080, rss: 157_286_400, external: 2_097_152 },
      start_time: "2026-11-23T06:00:00.000Z",
      last_compile: null,
      build_time: "2026-11-22T22:15:00.000Z",
      uptime: 2 * 3_600_000 + 5 * 60_000,
    },
    database: {
      status: "connected",
      engine: "pglite",
      version: "PostgreSQL 17.4",
      database_size: 25_165_824,
      connections_ratio: null,
      active_connections: null,
      max_connections: null,
      cache_hit_ratio: 99.2,
      query_time: 1.8,
      slow_queries: null,
      not_applicable: ["connections", "slow_queries"],
    },
    redis: {
      status: "not_configured",
      version: null,
      connected_clients: null,
      max_clients: null,
      memory_usage_percent: null,
      memory_usage: null,
      memory_peak: null,
      hit_ratio: null,
      operations_per_sec: null,
      keyspace_hits: null,
      keyspace_misses: null,
    },
  };
}

export const sessionMetrics = {
  total_active_sessions: 14,
  unique_users: 11,
  recent_activity: { last_hour: 6, last_24h: 12 },
  sessions_by_device: { mobile: 9, desktop: 4, tablet: 1, unknown: 0 },
  agency_distribution: [
    { agency_name: "Country Fire Authority", active_sessions: 8 },
    { agency_name: "State Emergency Service", active_sessions: 6 },
  ],
};

export const messageMetrics = {
  total_messages: 128_450,
  messages_today: 312,
  messages_this_hour: 17,
  average_per_day: 402.6,
  type_distribution: [
    { type: "emergency", count: 60_000, percentage: 46.7 },
    { type: "standard", count: 68_450, percentage: 53.3 },
  ],
  agency_distribution: [
    "Country Fire Authority",
    "Fire Rescue Victoria",
    "State Emergency Service",
    "Ambulance Victoria",
    "Life Saving Victoria",
    "Other",
  ].map((agency_name, index) => ({
    agency_name,
    message_count: 600 - index * 100,
    percentage: 20 - index * 3,
  })),
  estimated: ["total_messages"],
};

export const smsMetrics = {
  status: "not_configured",
  is_enabled: false,
  provider: "outbox",
  sender_address: "Turnout",
  last_api_check: null,
  api_response_time: null,
  detail: null,
  success_rate: 97.5,
  total_sent: 390,
  pending: 2,
  failed: 10,
};

/** `count` log entries, newest first, levels cycling critical, error, warn, info. */
export function makeLogs(count: number, level?: string) {
  const levels = ["critical", "error", "warn", "info"];
  return Array.from({ length: count }, (_, index) => ({
    id: 5000 - index,
    level: level ?? levels[index % levels.length],
    category: "auth",
    message: `Log entry ${index + 1}`,
    timestamp: new Date(Date.UTC(2026, 10, 23, 6, 0) - index * 60_000).toISOString(),
    details: null,
    ip_address: "203.0.113.9",
  }));
}

/** GET /admin/system/dashboard `data`. */
export function makeDashboard(
  overrides: {
    health?: { overall: string; issues: string[]; warnings: string[]; notes?: string[]; environment: string };
    node?: string;
  } = {},
) {
  return {
    health: overrides.health ?? {
      overall: "healthy",
      issues: [],
      warnings: [],
      notes: ["Single instance (no Redis)"],
      environment: "development",
    },
    metrics: makeMetrics({ node: overrides.node }),
    sessions: sessionMetrics,
    messages: messageMetrics,
    sms: smsMetrics,
    media_queue: {
      available: true,
      concurrency: 1,
      ffmpeg_threads: 1,
      waiting: 4,
      running: 1,
      failed_last_day: 0,
      oldest_waiting_seconds: 185,
    },
    logs: { data: makeLogs(3), total: 3 },
  };
}

const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({
  body: { success: true, data, ...extra },
});

/** Every call the signed-in page and the monitor make, answered plausibly; override any of them. */
export function adminRoutes(overrides: Record<string, MockRoute> = {}): Record<string, MockRoute> {
  return {
    "GET /health": { body: { status: "ok", environment: "development" } },
    "GET /alerts/search": {
      body: { success: true, data: [], pagination: { has_more: false, next_cursor: null } },
    },
    "GET /admin/user-alerts/stats/overview": ok({ overview: { pending_alerts: 0 } }),
    "GET /admin/users": ok([], { total: 0 }),
    "GET /admin/system/dashboard": ok(makeDashboard()),
    "GET /admin/system/metrics": ok(makeMetrics()),
    "GET /admin/system/sessions": ok(sessionMetrics),
    "GET /admin/system/messages": ok(messageMetrics),
    "GET /admin/system/sms": ok(smsMetrics),
    "GET /admin/system/logs": ok(makeLogs(3), { total: 3 }),
    "GET /admin/receivers": ok([]),
    "GET /admin/displays": ok([]),
    "GET /admin/displays/units": ok([]),
    "GET /feedback/unread-count": ok({ unread_count: 0 }),
    "GET /feedback/admin/unread-count": ok({ unread_count: 0 }),
    "GET /feedback/admin/conversations": ok([]),
    "GET /feedback/admin/stats": ok({ total: 0, open: 0, in_progress: 0, closed: 0, ffmpeg_available: true }),
    ...overrides,
  };
}
