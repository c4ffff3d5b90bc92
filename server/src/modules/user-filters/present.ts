import type { agencies, userFilters } from "../../db/schema.js";

type UserFilterRow = typeof userFilters.$inferSelect;
type AgencyRow = typeof agencies.$inferSelect;

/** SPEC 3 'User filter': exactly the fields that leave the server. */
export function presentUserFilter(f: UserFilterRow) {
  return {
    id: f.id,
    user_id: f.userId,
    filter_type: f.filterType,
    filter_value: f.filterValue,
    is_enabled: f.isEnabled,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}

/** SPEC 3 'Filter-available agencies carry filter_value, name, code'. */
export function presentFilterableAgency(a: AgencyRow) {
  return { filter_value: String(a.id), name: a.name, code: a.code };
}
