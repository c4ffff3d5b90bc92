import { and, asc, count, desc, eq, inArray, isNotNull, isNull, like, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, deviceSessions, userAgencies, users } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import { listActiveSessions } from "../../shared/sessions.js";
import type { AdminUser, UserStatus } from "./present.js";

export type UserRow = typeof users.$inferSelect;
export type AgencyRow = typeof agencies.$inferSelect;

export const USER_NOT_FOUND = "User not found.";

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function statusCondition(status: UserStatus): SQL {
  switch (status) {
    case "unverified":
      return eq(users.isVerified, false);
    case "active":
      return and(eq(users.isVerified, true), eq(users.isActive, true))!;
    case "pending_review":
      return and(eq(users.isVerified, true), eq(users.isActive, false), isNull(users.activatedAt))!;
    case "inactive":
      return and(eq(users.isVerified, true), eq(users.isActive, false), isNotNull(users.activatedAt))!;
  }
}

/** Name text anywhere in 'first last'; a phone typed the way people write it ('0412 345', '+61412'). */
function searchCondition(search: string): SQL | undefined {
  const text = search.trim();
  if (text === "") return undefined;
  const conditions = [sql`(${users.firstName} || ' ' || ${users.lastName}) ILIKE ${`%${escapeLike(text)}%`}`];
  const digits = text.replace(/\D/g, "");
  if (digits.length >= 3 && /^[\d\s()+.-]+$/.test(text)) {
    // Phones are stored +61...: a national leading 0 stands for 61.
    const stored = digits.startsWith("0") ? `61${digits.slice(1)}` : digits;
    conditions.push(like(users.phone, `%${stored}%`));
  }
  return or(...conditions);
}

// Plain SQL: drizzle leaves columns unqualified in a one-table select, which a correlated subquery
// on device_sessions (also with an id) would misread.
const activeSessionCount = sql<number>`(select count(*) from device_sessions ds
  where ds.user_id = "users"."id" and ds.ended_at is null and ds.expires_at > now())`.mapWith(Number);
/** The latest of any session's last use and the last sign-in. */
const lastActivity = sql<Date | null>`greatest(
  (select max(ds.last_activity) from device_sessions ds where ds.user_id = "users"."id"),
  "users"."last_login_at")`.mapWith(deviceSessions.lastActivity);

/** Each user's agencies, first assigned first (the first is their primary agency). */
async function agenciesByUser(db: Database, userIds: number[]): Promise<Map<number, AgencyRow[]>> {
  const byUser = new Map<number, AgencyRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await db
    .select({ userId: userAgencies.userId, agency: agencies })
    .from(userAgencies)
    .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
    .where(inArray(userAgencies.userId, userIds))
    .orderBy(asc(userAgencies.createdAt), asc(agencies.id));
  for (const r of rows) byUser.get(r.userId)?.push(r.agency);
  return byUser;
}

async function loadAdminUsers(
  db: Database,
  where: SQL | undefined,
  page: { limit: number; offset: number },
): Promise<AdminUser[]> {
  const rows = await db
    .select({ user: users, activeSessions: activeSessionCount, lastActivity })
    .from(users)
    .where(where)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(page.limit)
    .offset(page.offset);
  const byUser = await agenciesByUser(
    db,
    rows.map((r) => r.user.id),
  );
  return rows.map((r) => ({
    ...r.user,
    activeSessions: r.activeSessions,
    lastActivity: r.lastActivity,
    agencies: byUser.get(r.user.id) ?? [],
  }));
}

/** A page of users, newest first, matching a name or phone search and a status; with the total. */
export async function listUsers(
  db: Database,
  query: { limit: number; offset: number; search?: string; status?: UserStatus },
): Promise<{ users: AdminUser[]; total: number }> {
  const where = and(
    query.search ? searchCondition(query.search) : undefined,
    query.status ? statusCondition(query.status) : undefined,
  );
  const [total] = await db.select({ n: count() }).from(users).where(where);
  return { users: await loadAdminUsers(db, where, query), total: Number(total?.n ?? 0) };
}

/** One user in the admin view. Throws 404 when there is no such user. */
export async function getAdminUser(db: Database, userId: number): Promise<AdminUser> {
  const [user] = await loadAdminUsers(db, eq(users.id, userId), { limit: 1, offset: 0 });
  if (!user) throw notFound(USER_NOT_FOUND);
  return user;
}

/** A user's active device sessions, oldest first. Throws 404 when there is no such user. */
export async function listUserSessions(db: Database, userId: number) {
  await findUser(db, userId);
  return listActiveSessions(db, userId);
}

/** A user's agencies, first assigned first. Throws 404 when there is no such user. */
export async function listUserAgencies(db: Database, userId: number): Promise<AgencyRow[]> {
  await findUser(db, userId);
  return (await agenciesByUser(db, [userId])).get(userId) ?? [];
}

export async function findUser(db: Database, userId: number, lock = false): Promise<UserRow> {
  const query = db.select().from(users).where(eq(users.id, userId));
  const [user] = lock ? await query.for("update") : await query;
  if (!user) throw notFound(USER_NOT_FOUND);
  return user;
}
