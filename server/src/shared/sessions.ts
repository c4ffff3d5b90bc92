import { classifyDevice, type DeviceInfo, describeBrowser, describeOs } from "@turnout/domain";
import { and, asc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { deviceSessions, pendingSessionEvictions } from "../db/schema.js";
import { notFound } from "../errors.js";

export type SessionEndReason = "logout" | "admin" | "force_logout" | "replaced" | "expired" | "deleted";
type SessionRow = typeof deviceSessions.$inferSelect;

/** How long a choice made on the maximum-devices dialog waits for that device to finish signing in. */
const EVICTION_TTL_MS = 15 * 60_000;

/** The user's sessions that are neither ended nor expired, oldest first. */
export async function listActiveSessions(db: Database, userId: number): Promise<SessionRow[]> {
  return db
    .select()
    .from(deviceSessions)
    .where(
      and(
        eq(deviceSessions.userId, userId),
        isNull(deviceSessions.endedAt),
        gt(deviceSessions.expiresAt, new Date()),
      ),
    )
    .orderBy(asc(deviceSessions.createdAt));
}

/** Ends a session (no-op when already ended). Returns whether it was active. */
export async function endSession(
  db: Database,
  sessionId: string,
  reason: SessionEndReason,
): Promise<boolean> {
  const rows = await db
    .update(deviceSessions)
    .set({ endedAt: new Date(), endReason: reason })
    .where(and(eq(deviceSessions.id, sessionId), isNull(deviceSessions.endedAt)))
    .returning({ id: deviceSessions.id });
  return rows.length > 0;
}

/** Ends every active session of a user, or only `sessionId` when given; returns the ids it ended. */
export async function endUserSessions(
  db: Database,
  userId: number,
  reason: SessionEndReason,
  sessionId?: string,
): Promise<string[]> {
  const rows = await db
    .update(deviceSessions)
    .set({ endedAt: new Date(), endReason: reason })
    .where(
      and(
        eq(deviceSessions.userId, userId),
        isNull(deviceSessions.endedAt),
        sessionId ? eq(deviceSessions.id, sessionId) : undefined,
      ),
    )
    .returning({ id: deviceSessions.id });
  return rows.map((r) => r.id);
}

/**
 * Whether `deviceId` may start a new session for the user: yes when the device already holds one
 * (it is replaced), when it chose a session to log out, or when fewer than `max` are active.
 */
export async function sessionLimitState(db: Database, userId: number, deviceId: string, max: number) {
  const sessions = await listActiveSessions(db, userId);
  const others = sessions.filter((s) => s.deviceId !== deviceId);
  const eviction = await pendingEviction(db, userId, deviceId);
  const freed = eviction && others.some((s) => s.id === eviction.sessionId) ? 1 : 0;
  return { canCreate: others.length - freed < max, sessions: others, maxSessions: max };
}

async function pendingEviction(db: Database, userId: number, deviceId: string) {
  const [row] = await db
    .select()
    .from(pendingSessionEvictions)
    .where(
      and(
        eq(pendingSessionEvictions.userId, userId),
        eq(pendingSessionEvictions.deviceId, deviceId),
        gt(pendingSessionEvictions.expiresAt, new Date()),
      ),
    );
  return row ?? null;
}

/**
 * Records the session chosen on the maximum-devices dialog. It is ended when `deviceId` completes its
 * sign-in, so nobody can end another person's session by knowing only their phone number.
 * Throws 404 when the session is not one of the user's active sessions.
 */
export async function chooseSessionToEvict(
  db: Database,
  userId: number,
  deviceId: string,
  sessionId: string,
) {
  const sessions = await listActiveSessions(db, userId);
  if (!sessions.some((s) => s.id === sessionId && s.deviceId !== deviceId))
    throw notFound("Session not found");
  await db.delete(pendingSessionEvictions).where(lt(pendingSessionEvictions.expiresAt, new Date()));
  await db
    .insert(pendingSessionEvictions)
    .values({ userId, deviceId, sessionId, expiresAt: new Date(Date.now() + EVICTION_TTL_MS) })
    .onConflictDoUpdate({
      target: [pendingSessionEvictions.userId, pendingSessionEvictions.deviceId],
      set: { sessionId, expiresAt: new Date(Date.now() + EVICTION_TTL_MS) },
    });
}

/**
 * Opens a device session after a successful sign-in: ends this device's previous session and the
 * session it chose to evict, then inserts the new one. Run inside the sign-in transaction; tell the
 * live channel about `endedSessionIds` after it commits.
 */
export async function openSession(
  db: Database,
  input: {
    userId: number;
    deviceId: string;
    deviceInfo: Partial<DeviceInfo>;
    userAgent: string | null;
    ip: string | null;
    ttlDays: number;
  },
): Promise<{ session: SessionRow; endedSessionIds: string[] }> {
  const endedSessionIds: string[] = [];
  const eviction = await pendingEviction(db, input.userId, input.deviceId);
  if (eviction) {
    if (await endSession(db, eviction.sessionId, "force_logout")) endedSessionIds.push(eviction.sessionId);
    await db.delete(pendingSessionEvictions).where(eq(pendingSessionEvictions.id, eviction.id));
  }
  const replaced = await db
    .update(deviceSessions)
    .set({ endedAt: new Date(), endReason: "replaced" })
    .where(
      and(
        eq(deviceSessions.userId, input.userId),
        eq(deviceSessions.deviceId, input.deviceId),
        isNull(deviceSessions.endedAt),
      ),
    )
    .returning({ id: deviceSessions.id });
  endedSessionIds.push(...replaced.map((r) => r.id));
  const [row] = await db
    .insert(deviceSessions)
    .values({
      userId: input.userId,
      deviceId: input.deviceId,
      deviceInfo: input.deviceInfo,
      userAgent: input.userAgent?.slice(0, 500) ?? null,
      ipAddress: input.ip,
      expiresAt: new Date(Date.now() + input.ttlDays * 86_400_000),
    })
    .returning();
  return { session: row!, endedSessionIds };
}

/**
 * When this process last marked each session as used (ms), so that a session it marked less than
 * TOUCH_SKIP_MS ago costs no round trip at all: the UPDATE below writes at most once a minute anyway,
 * but asking cost every signed-in request a query. Cleared whole when it grows past TOUCHED_MAX.
 */
const touched = new Map<string, number>();
const TOUCH_SKIP_MS = 30_000;
const TOUCHED_MAX = 50_000;

/** Marks a session as used now, at most once a minute, so every request does not write. */
export async function touchSession(db: Database, sessionId: string): Promise<void> {
  const now = Date.now();
  const last = touched.get(sessionId);
  if (last !== undefined && now - last < TOUCH_SKIP_MS && now >= last) return;
  if (touched.size >= TOUCHED_MAX) touched.clear();
  touched.set(sessionId, now);
  await db
    .update(deviceSessions)
    .set({ lastActivity: new Date() })
    .where(
      and(
        eq(deviceSessions.id, sessionId),
        lt(deviceSessions.lastActivity, sql`now() - interval '60 seconds'`),
      ),
    );
}

/** Ends one of the user's own sessions; 404 when it is not theirs or already ended. */
export async function endOwnSession(db: Database, userId: number, sessionId: string): Promise<void> {
  const rows = await db
    .update(deviceSessions)
    .set({ endedAt: new Date(), endReason: "deleted" })
    .where(
      and(
        eq(deviceSessions.id, sessionId),
        eq(deviceSessions.userId, userId),
        isNull(deviceSessions.endedAt),
      ),
    )
    .returning({ id: deviceSessions.id });
  if (rows.length === 0) throw notFound("Session not found");
}

/** A human description of a session's device, e.g. "Chrome on Android (Mobile)". */
export function describeDevice(info: unknown, userAgent: string | null): string {
  const i = (info ?? {}) as Partial<DeviceInfo>;
  const ua = userAgent ?? "";
  const browser = i.browser || describeBrowser(ua);
  const os = i.os || describeOs(ua);
  const device = i.device || classifyDevice(ua);
  return `${browser} on ${os} (${device})`;
}

/** Hides the last part of an address shown to someone not yet signed in (203.0.113.7 -> 203.0.113.x). */
export function maskIp(ip: string | null): string | null {
  if (!ip) return null;
  if (ip.includes(".")) return ip.replace(/\.\d+$/, ".x");
  return ip.replace(/:[0-9a-f]*$/i, ":x");
}

/** The wire shape of SPEC 3 'Device session'. */
export function presentSession(
  row: SessionRow,
  options: { maskIp?: boolean; currentSessionId?: string } = {},
) {
  return {
    id: row.id,
    device_info: describeDevice(row.deviceInfo, row.userAgent),
    last_activity: row.lastActivity.toISOString(),
    ip_address: options.maskIp ? maskIp(row.ipAddress) : row.ipAddress,
    created_at: row.createdAt.toISOString(),
    ...(options.currentSessionId ? { is_current: row.id === options.currentSessionId } : {}),
  };
}
