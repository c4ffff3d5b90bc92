// The system monitor's figures as its cards use them (GET /admin/system/*), and the log filter's choices.
import type { HealthStatus } from "@turnout/domain";

/** One CPU core's load. */
export interface CoreUsage {
  core_id: number;
  usage: number | null;
}

/** GET /admin/system/metrics `data` (the contract of issue 11); null where a figure does not apply. */
export interface SystemMetrics {
  system: {
    load_average: number[];
    cpu_usage: number | null;
    total_cores: number | null;
    cores: CoreUsage[];
    memory: {
      usage_percent: number | null;
      used: number | null;
      total: number | null;
      available: number | null;
    };
    hostname: string | null;
    platform: string | null;
    host_uptime: number | null;
  };
  application: {
    version: string | null;
    environment: string | null;
    port: number | null;
    process_id: number | null;
    node_version: string | null;
    memory_usage: {
      heapUsed: number | null;
      heapTotal: number | null;
      rss: number | null;
      external: number | null;
    };
    start_time: string | null;
    last_compile: string | null;
    build_time: string | null;
    uptime: number | null;
  };
  database: {
    status: string | null;
    engine: string | null;
    version: string | null;
    database_size: number | null;
    connections_ratio: number | null;
    active_connections: number | null;
    max_connections: number | null;
    cache_hit_ratio: number | null;
    query_time: number | null;
    slow_queries: number | null;
    not_applicable: string[];
  };
  redis: {
    status: string | null;
    version: string | null;
    connected_clients: number | null;
    max_clients: number | null;
    memory_usage_percent: number | null;
    memory_usage: number | null;
    memory_peak: number | null;
    hit_ratio: number | null;
    operations_per_sec: number | null;
    keyspace_hits: number | null;
    keyspace_misses: number | null;
  };
}

/** GET /admin/system/sessions `data`. */
export interface SessionMetrics {
  total_active_sessions: number | null;
  unique_users: number | null;
  recent_activity: { last_hour: number | null; last_24h: number | null };
  sessions_by_device: {
    mobile: number | null;
    desktop: number | null;
    tablet: number | null;
    unknown: number | null;
  };
  agency_distribution: Array<{ agency_name: string; active_sessions: number | null }>;
}

/** GET /admin/system/messages `data`; `estimated` names the figures that are estimates. */
export interface MessageMetrics {
  total_messages: number | null;
  messages_today: number | null;
  messages_this_hour: number | null;
  average_per_day: number | null;
  type_distribution: Array<{ type: string; count: number | null; percentage: number | null }>;
  agency_distribution: Array<{
    agency_name: string;
    message_count: number | null;
    percentage: number | null;
  }>;
  estimated: string[];
}

/** GET /admin/system/sms `data`: the SMS provider's state and the queue's totals. */
export interface SmsMetrics {
  status: string | null;
  is_enabled: boolean;
  provider: string | null;
  sender_address: string | null;
  last_api_check: string | null;
  api_response_time: number | null;
  detail: string | null;
  success_rate: number | null;
  total_sent: number | null;
  pending: number | null;
  failed: number | null;
}

/** One system log entry, newest first. */
export interface LogEntry {
  id: string;
  level: string;
  category: string | null;
  message: string;
  timestamp: string | null;
  ip_address: string | null;
}

/** A page of logs and how many match in all. */
export interface LogPage {
  data: LogEntry[];
  total: number;
}

/** The monitor's overall state (SPEC 3 'Health'). */
export interface SystemHealth {
  overall: HealthStatus;
  issues: string[];
  warnings: string[];
  /** Information that is no problem (e.g. 'Single instance (no Redis)'). */
  notes: string[];
  environment: "development" | "production";
}

/** The feedback media queue (issue 28): video posters and conversions waiting for ffmpeg. */
export interface MediaQueue {
  available: boolean;
  concurrency: number | null;
  ffmpeg_threads: number | null;
  waiting: number | null;
  running: number | null;
  failed_last_day: number | null;
  oldest_waiting_seconds: number | null;
}

/** GET /admin/system/dashboard `data`: everything the monitor shows, in one answer. */
export interface SystemDashboard {
  health: SystemHealth;
  metrics: SystemMetrics;
  sessions: SessionMetrics;
  messages: MessageMetrics;
  sms: SmsMetrics;
  mediaQueue: MediaQueue;
  logs: LogPage;
}

/** The log levels the filter offers (SPEC 2 'System logs view'). */
export const LOG_LEVELS = ["critical", "error", "warn", "info"] as const;
/** A log level, or every level. */
export type LogLevelFilter = (typeof LOG_LEVELS)[number] | "all";

/** How many log entries are asked for and shown (SPEC 9). */
export const LOG_PAGE_SIZE = 50;
