// The monitor's answers, read by hand rather than with zod: the dashboard is prefetched by the
// signed-in page right after an admin signs in, and zod in that chunk would weigh more than these
// readers. Every reader is lenient: a figure the server leaves out or sends in another type reads as
// null ('n/a' on screen), never as an error that blanks a whole card.
import type { HealthStatus } from "@turnout/domain";
import type {
  LogPage,
  MediaQueue,
  MessageMetrics,
  SessionMetrics,
  SmsMetrics,
  SystemDashboard,
  SystemHealth,
  SystemMetrics,
} from "./monitor-types";

type Json = Record<string, unknown>;

export function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function texts(value: unknown): string[] {
  return list(value).filter((item): item is string => typeof item === "string");
}

export function readMetrics(value: unknown): SystemMetrics {
  const data = record(value);
  const system = record(data.system);
  const memory = record(system.memory);
  const application = record(data.application);
  const heap = record(application.memory_usage);
  const database = record(data.database);
  const redis = record(data.redis);
  return {
    system: {
      load_average: list(system.load_average).map((n) => num(n) ?? 0),
      cpu_usage: num(system.cpu_usage),
      total_cores: num(system.total_cores),
      cores: list(system.cores).map((core, index) => ({
        core_id: num(record(core).core_id) ?? index,
        usage: num(record(core).usage),
      })),
      memory: {
        usage_percent: num(memory.usage_percent),
        used: num(memory.used),
        total: num(memory.total),
        available: num(memory.available),
      },
      hostname: text(system.hostname),
      platform: text(system.platform),
      host_uptime: num(system.host_uptime),
    },
    application: {
      version: text(application.version),
      environment: text(application.environment),
      port: num(application.port),
      process_id: num(application.process_id),
      node_version: text(application.node_version),
      memory_usage: {
        heapUsed: num(heap.heapUsed),
        heapTotal: num(heap.heapTotal),
        rss: num(heap.rss),
        external: num(heap.external),
      },
      start_time: text(application.start_time),
      last_compile: text(application.last_compile),
      build_time: text(application.build_time),
      uptime: num(application.uptime),
    },
    database: {
      status: text(database.status),
      engine: text(database.engine),
      version: text(database.version),
      database_size: num(database.database_size),
      connections_ratio: num(database.connections_ratio),
      active_connections: num(database.active_connections),
      max_connections: num(database.max_connections),
      cache_hit_ratio: num(database.cache_hit_ratio),
      query_time: num(database.query_time),
      slow_queries: num(database.slow_queries),
      not_applicable: texts(database.not_applicable),
    },
    redis: {
      status: text(redis.status),
      version: text(redis.version),
      connected_clients: num(redis.connected_clients),
      max_clients: num(redis.max_clients),
      memory_usage_percent: num(redis.memory_usage_percent),
      memory_usage: num(redis.memory_usage),
      memory_peak: num(redis.memory_peak),
      hit_ratio: num(redis.hit_ratio),
      operations_per_sec: num(redis.operations_per_sec),
      keyspace_hits: num(redis.keyspace_hits),
      keyspace_misses: num(redis.keyspace_misses),
    },
  };
}

export function readSessionMetrics(value: unknown): SessionMetrics {
  const data = record(value);
  const recent = record(data.recent_activity);
  const devices = record(data.sessions_by_device);
  return {
    total_active_sessions: num(data.total_active_sessions),
    unique_users: num(data.unique_users),
    recent_activity: { last_hour: num(recent.last_hour), last_24h: num(recent.last_24h) },
    sessions_by_device: {
      mobile: num(devices.mobile),
      desktop: num(devices.desktop),
      tablet: num(devices.tablet),
      unknown: num(devices.unknown),
    },
    agency_distribution: list(data.agency_distribution).map((row) => ({
      agency_name: text(record(row).agency_name) ?? "Unknown agency",
      active_sessions: num(record(row).active_sessions),
    })),
  };
}

export function readMessageMetrics(value: unknown): MessageMetrics {
  const data = record(value);
  return {
    total_messages: num(data.total_messages),
    messages_today: num(data.messages_today),
    messages_this_hour: num(data.messages_this_hour),
    average_per_day: num(data.average_per_day),
    type_distribution: list(data.type_distribution).map((row) => ({
      type: text(record(row).type) ?? "unknown",
      count: num(record(row).count),
      percentage: num(record(row).percentage),
    })),
    agency_distribution: list(data.agency_distribution).map((row) => ({
      agency_name: text(record(row).agency_name) ?? "Unknown agency",
      message_count: num(record(row).message_count),
      percentage: num(record(row).percentage),
    })),
    estimated: texts(data.estimated),
  };
}

export function readSmsMetrics(value: unknown): SmsMetrics {
  const data = record(value);
  return {
    status: text(data.status),
    is_enabled: data.is_enabled === true,
    provider: text(data.provider),
    sender_address: text(data.sender_address),
    last_api_check: text(data.last_api_check),
    api_response_time: num(data.api_response_time),
    detail: text(data.detail),
    success_rate: num(data.success_rate),
    total_sent: num(data.total_sent),
    pending: num(data.pending),
    failed: num(data.failed),
  };
}

export function readMediaQueue(value: unknown): MediaQueue {
  const data = record(value);
  return {
    available: data.available === true,
    concurrency: num(data.concurrency),
    ffmpeg_threads: num(data.ffmpeg_threads),
    waiting: num(data.waiting),
    running: num(data.running),
    failed_last_day: num(data.failed_last_day),
    oldest_waiting_seconds: num(data.oldest_waiting_seconds),
  };
}

export function readLogPage(value: unknown, total: unknown): LogPage {
  const data = list(value).map((row, index) => {
    const entry = record(row);
    const id = entry.id;
    return {
      id: typeof id === "string" || typeof id === "number" ? String(id) : `row-${index}`,
      level: text(entry.level) ?? "info",
      category: text(entry.category),
      message: text(entry.message) ?? "",
      timestamp: text(entry.timestamp),
      ip_address: text(entry.ip_address),
    };
  });
  return { data, total: num(total) ?? data.length };
}

const HEALTH_STATES: readonly HealthStatus[] = ["healthy", "warning", "critical"];

export function readHealth(value: unknown): SystemHealth {
  const data = record(value);
  const overall = HEALTH_STATES.find((state) => state === data.overall) ?? "warning";
  return {
    overall,
    issues: texts(data.issues),
    warnings: texts(data.warnings),
    notes: texts(data.notes),
    environment: data.environment === "development" ? "development" : "production",
  };
}

export function readDashboard(value: unknown): SystemDashboard {
  const data = record(value);
  const logs = record(data.logs);
  return {
    health: readHealth(data.health),
    metrics: readMetrics(data.metrics),
    sessions: readSessionMetrics(data.sessions),
    messages: readMessageMetrics(data.messages),
    sms: readSmsMetrics(data.sms),
    mediaQueue: readMediaQueue(data.media_queue),
    logs: readLogPage(logs.data, logs.total),
  };
}
