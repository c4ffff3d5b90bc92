import type { agencies, users } from "../db/schema.js";

type UserRow = typeof users.$inferSelect;
type AgencyRow = typeof agencies.$inferSelect;

/** SPEC 3 'User': exactly the fields that leave the server. */
export function presentUser(u: UserRow) {
  return { id: u.id, first_name: u.firstName, last_name: u.lastName, phone: u.phone, is_admin: u.isAdmin };
}

/** The signed-in user's own profile: SPEC 3 'User' plus when an admin last reset their install banner. */
export function presentProfileUser(u: UserRow) {
  return { ...presentUser(u), pwa_banner_reset_at: u.pwaBannerResetAt?.toISOString() ?? null };
}

/** SPEC 3 'Agency'. */
export function presentAgency(a: AgencyRow) {
  return { id: a.id, name: a.name, code: a.code, logo_path: a.logoPath };
}
