import type { agencies, users } from "../../db/schema.js";

type UserRow = typeof users.$inferSelect;
type AgencyRow = typeof agencies.$inferSelect;

/** A user as the admin Users tab reads it: the row, its agencies and its session figures. */
export type AdminUser = UserRow & {
  agencies: AgencyRow[];
  activeSessions: number;
  lastActivity: Date | null;
};

export const USER_STATUSES = ["active", "pending_review", "unverified", "inactive"] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/**
 * Where an account stands: `unverified` (activation code never entered), `active`, `pending_review`
 * (verified, never activated: waiting for an admin) or `inactive` (activated once, switched off).
 */
export function userStatus(u: Pick<UserRow, "isVerified" | "isActive" | "activatedAt">): UserStatus {
  if (!u.isVerified) return "unverified";
  if (u.isActive) return "active";
  return u.activatedAt ? "inactive" : "pending_review";
}

/** An agency as listed on a user. */
export function presentUserAgency(a: AgencyRow) {
  return { id: a.id, name: a.name, code: a.code };
}

/** The admin view of a user (issue 11 contract): exactly the fields that leave the server. */
export function presentAdminUser(u: AdminUser) {
  return {
    id: u.id,
    first_name: u.firstName,
    last_name: u.lastName,
    phone: u.phone,
    is_admin: u.isAdmin,
    is_active: u.isActive,
    is_verified: u.isVerified,
    status: userStatus(u),
    max_sessions: u.maxSessions,
    active_sessions: u.activeSessions,
    last_activity: u.lastActivity?.toISOString() ?? null,
    created_at: u.createdAt.toISOString(),
    agencies: u.agencies.map(presentUserAgency),
  };
}
