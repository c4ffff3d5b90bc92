import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { hitRatioColor, memoryBarColor, smsSuccessColor, usageBarColor } from "@turnout/domain";
import { formatBytes, NOT_AVAILABLE } from "../../../ui/format-bytes";
import { capitalise, formatCount, formatDuration, formatMs, formatPercent, formatWhen } from "./format";
import { type CardFreshness, FigureList, MetricBar, MonitorCard } from "./monitor-card";
import type { MediaQueue, MessageMetrics, SessionMetrics, SmsMetrics, SystemMetrics } from "./monitor-types";

/** What every figures card reads: the metrics answer and how fresh it is. */
interface MetricCardProps {
  metrics: SystemMetrics | undefined;
  freshness: CardFreshness;
}

/** Only the first few cores are drawn (SPEC 9); the total is written out. */
const CORES_SHOWN = 4;
/** The messages card lists the busiest agencies only (SPEC 9). */
const TOP_AGENCIES = 5;

function StatusChip({ status, good }: { status: string | null; good: string }) {
  const value = status ?? "unknown";
  const color = value === good ? "success" : value === "not_configured" ? "default" : "error";
  return <Chip size="small" label={capitalise(value.replace(/_/g, " "))} color={color} />;
}

function SubHeading({ children }: { children: string }) {
  return (
    <Typography variant="subtitle2" component="h3" sx={{ mt: 0.5 }}>
      {children}
    </Typography>
  );
}

/** Host figures: CPU with the first cores, memory, load average, host name and uptime. */
export function SystemCard({ metrics, freshness }: MetricCardProps) {
  const system = metrics?.system;
  return (
    <MonitorCard title="System" freshness={freshness}>
      {system ? (
        <>
          <MetricBar label="CPU usage" percent={system.cpu_usage} color={usageBarColor} />
          {system.cores.slice(0, CORES_SHOWN).map((core) => (
            <MetricBar
              key={core.core_id}
              label={`Core ${core.core_id}`}
              percent={core.usage}
              color={usageBarColor}
            />
          ))}
          <MetricBar
            label="Memory"
            percent={system.memory.usage_percent}
            color={memoryBarColor}
            detail={`${formatBytes(system.memory.used)} of ${formatBytes(system.memory.total)}`}
          />
          <FigureList
            rows={[
              ["CPU cores", formatCount(system.total_cores)],
              [
                "Load average",
                system.load_average.length > 0
                  ? system.load_average.map((load) => load.toFixed(2)).join(" / ")
                  : NOT_AVAILABLE,
              ],
              ["Hostname", system.hostname ?? NOT_AVAILABLE],
              ["Platform", system.platform ?? NOT_AVAILABLE],
              ["Host uptime", formatDuration(system.host_uptime)],
            ]}
          />
        </>
      ) : null}
    </MonitorCard>
  );
}

/** This server process: version, Node version, memory, uptime, build. */
export function ApplicationCard({ metrics, freshness }: MetricCardProps) {
  const app = metrics?.application;
  return (
    <MonitorCard title="Application" freshness={freshness}>
      {app ? (
        <FigureList
          rows={[
            ["Version", app.version ?? NOT_AVAILABLE],
            ["Environment", app.environment ? capitalise(app.environment) : NOT_AVAILABLE],
            ["Node.js", app.node_version ?? NOT_AVAILABLE],
            ["Port", app.port === null ? NOT_AVAILABLE : String(app.port)],
            ["Process id", app.process_id === null ? NOT_AVAILABLE : String(app.process_id)],
            ["Uptime", formatDuration(app.uptime)],
            ["Started", formatWhen(app.start_time)],
            [
              "Heap",
              `${formatBytes(app.memory_usage.heapUsed)} of ${formatBytes(app.memory_usage.heapTotal)}`,
            ],
            ["Resident memory", formatBytes(app.memory_usage.rss)],
            ["Built", formatWhen(app.build_time)],
            ["Last compile", formatWhen(app.last_compile)],
          ]}
        />
      ) : null}
    </MonitorCard>
  );
}

/** The database: status, engine, size, connections and cache hit ratio (PGlite has no connection pool). */
export function DatabaseCard({ metrics, freshness }: MetricCardProps) {
  const db = metrics?.database;
  return (
    <MonitorCard
      title="Database"
      freshness={freshness}
      chip={<StatusChip status={db?.status ?? null} good="connected" />}
    >
      {db ? (
        <>
          {db.connections_ratio !== null ? (
            <MetricBar
              label="Connections"
              percent={db.connections_ratio}
              color={usageBarColor}
              detail={`${formatCount(db.active_connections)} of ${formatCount(db.max_connections)}`}
            />
          ) : null}
          {db.cache_hit_ratio !== null ? (
            <MetricBar label="Cache hit ratio" percent={db.cache_hit_ratio} color={hitRatioColor} />
          ) : null}
          <FigureList
            rows={[
              ["Status", db.status ? capitalise(db.status) : NOT_AVAILABLE],
              [
                "Engine",
                db.engine === "pglite"
                  ? "PGlite (embedded)"
                  : db.engine === "postgresql"
                    ? "PostgreSQL"
                    : NOT_AVAILABLE,
              ],
              ["Version", db.version ?? NOT_AVAILABLE],
              ["Size", formatBytes(db.database_size)],
              ["Query time", formatMs(db.query_time)],
              ["Slow queries", formatCount(db.slow_queries)],
              db.not_applicable.length > 0 ? ["Not applicable here", db.not_applicable.join(", ")] : null,
            ]}
          />
        </>
      ) : null}
    </MonitorCard>
  );
}

/** The cache store (Redis when configured, else the in-process fallback). */
export function CacheCard({ metrics, freshness }: MetricCardProps) {
  const redis = metrics?.redis;
  return (
    <MonitorCard
      title="Cache store"
      freshness={freshness}
      chip={<StatusChip status={redis?.status ?? null} good="connected" />}
    >
      {redis ? (
        redis.status === "not_configured" ? (
          <Typography variant="body2">
            No Redis configured: rate limits and counters live in this server process.
          </Typography>
        ) : (
          <>
            {redis.memory_usage_percent !== null ? (
              <MetricBar
                label="Memory"
                percent={redis.memory_usage_percent}
                color={usageBarColor}
                detail={formatBytes(redis.memory_usage)}
              />
            ) : null}
            {redis.hit_ratio !== null ? (
              <MetricBar label="Hit ratio" percent={redis.hit_ratio} color={hitRatioColor} />
            ) : null}
            <FigureList
              rows={[
                ["Version", redis.version ?? NOT_AVAILABLE],
                ["Clients", `${formatCount(redis.connected_clients)} of ${formatCount(redis.max_clients)}`],
                ["Peak memory", formatBytes(redis.memory_peak)],
                ["Operations per second", formatCount(redis.operations_per_sec)],
                [
                  "Hits / misses",
                  `${formatCount(redis.keyspace_hits)} / ${formatCount(redis.keyspace_misses)}`,
                ],
              ]}
            />
          </>
        )
      ) : null}
    </MonitorCard>
  );
}

/** Active device sessions: totals, recent activity, devices and the agencies they belong to. */
export function SessionsCard({
  sessions,
  freshness,
}: {
  sessions: SessionMetrics | undefined;
  freshness: CardFreshness;
}) {
  return (
    <MonitorCard title="Sessions" freshness={freshness}>
      {sessions ? (
        <>
          <FigureList
            rows={[
              ["Active sessions", formatCount(sessions.total_active_sessions)],
              ["Users signed in", formatCount(sessions.unique_users)],
              ["Active last hour", formatCount(sessions.recent_activity.last_hour)],
              ["Active last 24 hours", formatCount(sessions.recent_activity.last_24h)],
              [
                "Devices",
                `${formatCount(sessions.sessions_by_device.desktop)} desktop, ${formatCount(sessions.sessions_by_device.mobile)} mobile, ${formatCount(sessions.sessions_by_device.tablet)} tablet, ${formatCount(sessions.sessions_by_device.unknown)} unknown`,
              ],
            ]}
          />
          {sessions.agency_distribution.length > 0 ? (
            <>
              <SubHeading>By agency</SubHeading>
              <FigureList
                rows={sessions.agency_distribution
                  .slice(0, TOP_AGENCIES)
                  .map((row) => [row.agency_name, formatCount(row.active_sessions)])}
              />
            </>
          ) : null}
        </>
      ) : null}
    </MonitorCard>
  );
}

/** Pager messages received: totals, by type, and the five busiest agencies; estimates are marked '≈'. */
export function MessagesCard({
  messages,
  freshness,
}: {
  messages: MessageMetrics | undefined;
  freshness: CardFreshness;
}) {
  const about = (field: string, value: string) =>
    messages?.estimated.includes(field) ? `≈ ${value}` : value;
  return (
    <MonitorCard title="Messages" freshness={freshness}>
      {messages ? (
        <>
          <FigureList
            rows={[
              ["Total", about("total_messages", formatCount(messages.total_messages))],
              ["Today", about("messages_today", formatCount(messages.messages_today))],
              ["This hour", about("messages_this_hour", formatCount(messages.messages_this_hour))],
              ["Average per day", about("average_per_day", formatCount(messages.average_per_day))],
            ]}
          />
          {messages.type_distribution.length > 0 ? (
            <>
              <SubHeading>By type</SubHeading>
              <FigureList
                rows={messages.type_distribution.map((row) => [
                  capitalise(row.type),
                  `${formatCount(row.count)} (${formatPercent(row.percentage)})`,
                ])}
              />
            </>
          ) : null}
          {messages.agency_distribution.length > 0 ? (
            <>
              <SubHeading>Top agencies</SubHeading>
              <FigureList
                rows={messages.agency_distribution
                  .slice(0, TOP_AGENCIES)
                  .map((row) => [
                    row.agency_name,
                    `${formatCount(row.message_count)} (${formatPercent(row.percentage)})`,
                  ])}
              />
            </>
          ) : null}
          {messages.estimated.length > 0 ? (
            <Typography variant="caption" sx={{ color: "text.secondary" }}>
              ≈ marks an estimate.
            </Typography>
          ) : null}
        </>
      ) : null}
    </MonitorCard>
  );
}

const SMS_STATUS_GOOD = "connected";

/** The SMS service (SPEC 4): provider state, success rate and the queue's totals. */
export function SmsCard({ sms, freshness }: { sms: SmsMetrics | undefined; freshness: CardFreshness }) {
  return (
    <MonitorCard
      title="SMS service"
      freshness={freshness}
      chip={<StatusChip status={sms?.status ?? null} good={SMS_STATUS_GOOD} />}
    >
      {sms ? (
        <>
          {sms.success_rate !== null ? (
            <MetricBar label="Success rate" percent={sms.success_rate} color={smsSuccessColor} />
          ) : null}
          <FigureList
            rows={[
              ["Provider", sms.provider ?? NOT_AVAILABLE],
              ["Sending", sms.is_enabled ? "Enabled" : "Disabled (SMS are written to the outbox file)"],
              ["Sender", sms.sender_address ?? NOT_AVAILABLE],
              ["Sent", formatCount(sms.total_sent)],
              ["Pending", formatCount(sms.pending)],
              ["Failed", formatCount(sms.failed)],
              ["Last check", formatWhen(sms.last_api_check)],
              ["Response time", formatMs(sms.api_response_time)],
              sms.detail ? ["Detail", sms.detail] : null,
            ]}
          />
        </>
      ) : null}
    </MonitorCard>
  );
}

/** How long the oldest video has waited, in words: '40 s', '3 min', '2 h 5 min'. */
function formatWait(seconds: number | null): string {
  if (seconds === null) return "Nothing waiting";
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The feedback media queue: posters and conversions waiting for ffmpeg, and how many run. */
export function MediaQueueCard({
  queue,
  freshness,
}: {
  queue: MediaQueue | undefined;
  freshness: CardFreshness;
}) {
  return (
    <MonitorCard
      title="Media queue"
      freshness={freshness}
      chip={
        queue ? <StatusChip status={queue.available ? "available" : "unavailable"} good="available" /> : null
      }
    >
      {queue ? (
        <FigureList
          rows={[
            ["Waiting", formatCount(queue.waiting)],
            ["Running", `${formatCount(queue.running)} of ${formatCount(queue.concurrency)} at a time`],
            ["Oldest waiting", formatWait(queue.oldest_waiting_seconds)],
            ["Failed (24 h)", formatCount(queue.failed_last_day)],
            ["ffmpeg threads", formatCount(queue.ffmpeg_threads)],
          ]}
        />
      ) : null}
    </MonitorCard>
  );
}
