import { classifyDevice, computeHealth, type DeviceInfo, type SmsBudgetName } from "@turnout/domain";
import { and, count, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";
import { agencies, deviceSessions, systemLogs, userAgencies, users } from "../../db/schema.js";
import { recordAdminAction } from "../../shared/admin-actions.js";
import type { Actor } from "../../shared/guard.js";
import type { SystemLogLevel } from "../../system-log.js";

const activeSession = () => and(isNull(deviceSessions.endedAt), gt(deviceSessions.expiresAt, sql`now()`));

/** Every active device session with its user, most recently active first. */
export async function listAllActiveSessions(db: Database) {
  return db
    .select({
      session: deviceSessions,
      userName: sql<string>`${users.firstName} || ' ' || ${users.lastName}`,
    })
    .from(deviceSessions)
    .innerJoin(users, eq(users.id, deviceSessions.userId))
    .where(activeSession())
    .orderBy(desc(deviceSessions.lastActivity));
}

type DeviceKind = "mobile" | "desktop" | "tablet" | "unknown";

/** The device class a session reported (X-Device-Info), else the one its user agent shows, else unknown. */
function deviceKind(info: unknown, userAgent: string | null): DeviceKind {
  const reported = ((info ?? {}) as Partial<DeviceInfo>).device;
  const kind = reported || (userAgent ? classifyDevice(userAgent) : null);
  const lower = kind?.toLowerCase();
  return lower === "mobile" || lower === "desktop" || lower === "tablet" ? lower : "unknown";
}

/**
 * SPEC 3 'Session metrics': active sessions, distinct users, sessions active in the last hour and day,
 * sessions per device class, and active sessions per agency of their users (a member of two agencies
 * counts in both).
 */
export async function sessionMetrics(db: Database) {
  const [rows, byAgency] = await Promise.all([
    db
      .select({
        userId: deviceSessions.userId,
        deviceInfo: deviceSessions.deviceInfo,
        userAgent: deviceSessions.userAgent,
        lastActivity: deviceSessions.lastActivity,
      })
      .from(deviceSessions)
      .where(activeSession()),
    db
      .select({ agencyName: agencies.name, sessions: count() })
      .from(deviceSessions)
      .innerJoin(userAgencies, eq(userAgencies.userId, deviceSessions.userId))
      .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
      .where(activeSession())
      .groupBy(agencies.name)
      .orderBy(desc(count()), agencies.name),
  ]);
  const now = Date.now();
  const byDevice: Record<DeviceKind, number> = { mobile: 0, desktop: 0, tablet: 0, unknown: 0 };
  let lastHour = 0;
  let lastDay = 0;
  for (const r of rows) {
    byDevice[deviceKind(r.deviceInfo, r.userAgent)] += 1;
    const idle = now - r.lastActivity.getTime();
    if (idle <= 3_600_000) lastHour += 1;
    if (idle <= 86_400_000) lastDay += 1;
  }
  return {
    total_active_sessions: rows.length,
    unique_users: new Set(rows.map((r) => r.userId)).size,
    recent_activity: { last_hour: lastHour, last_24h: lastDay },
    sessions_by_device: byDevice,
    agency_distribution: byAgency.map((a) => ({ agency_name: a.agencyName, active_sessions: a.sessions })),
  };
}

/** System log entries, newest first, optionally of one level, with how many there are in all. */
export async function listSystemLogs(
  db: Database,
  query: { limit: number; offset: number; level?: SystemLogLevel },
) {
  const where = query.level ? eq(systemLogs.level, query.level) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(systemLogs)
      .where(where)
      .orderBy(desc(systemLogs.timestamp), desc(systemLogs.id))
      .limit(query.limit)
      .offset(query.offset),
    db.select({ n: count() }).from(systemLogs).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/**
 * Empties the system log and records that as its first entry (an admin action, with who did it).
 * Resolves to the number of entries removed.
 */
export async function clearSystemLogs(db: Database, actor: Actor, ip: string | null): Promise<number> {
  const [removed] = rowsOf<{ n: number }>(
    await db.execute(sql`WITH d AS (DELETE FROM ${systemLogs} RETURNING 1) SELECT count(*)::int AS n FROM d`),
  );
  const cleared = Number(removed?.n ?? 0);
  await recordAdminAction(db, actor, ip, {
    type: "admin_logs_cleared",
    message: `System log cleared (${cleared} entries)`,
    details: { cleared },
  });
  return cleared;
}

/**
 * The health card: computeHealth (SPEC 9) over memory, CPU, the database and the cache store, where a
 * cache store that is not configured is a warning, and so is a server without ffmpeg.
 */
export function monitorHealth(
  m: {
    system: { memory: { usage_percent: number | null }; cpu_usage: number | null };
    database: { status: string };
    redis: { status: string };
  },
  environment: "development" | "production",
  options: {
    videoConversionUnavailable?: boolean;
    smsBudgetsReached?: readonly SmsBudgetName[];
    /** Receivers and delivery alarms (issue 33). */
    receivers?: { issues: readonly string[]; warnings: readonly string[] };
    deliveryAlarms?: readonly string[];
    appErrorsLastHour?: number;
  } = {},
) {
  return {
    ...computeHealth({
      videoConversionUnavailable: options.videoConversionUnavailable,
      smsBudgetsReached: options.smsBudgetsReached,
      receivers: options.receivers,
      deliveryAlarms: options.deliveryAlarms,
      appErrorsLastHour: options.appErrorsLastHour,
      memoryPercent: m.system.memory.usage_percent,
      cpuPercent: m.system.cpu_usage,
      databaseConnected: m.database.status === "connected",
      cacheConnected: m.redis.status === "connected",
      cacheNotConfigured: m.redis.status === "not_configured",
    }),
    environment,
  };
}
