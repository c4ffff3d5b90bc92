import { normalizeAlertType } from "./message.js";
import { alertInUnitView, type UnitViewScope } from "./units.js";

/** Splits a search box value into lower-case terms on whitespace, dropping empties. */
export function parseSearchTerms(search: string): string[] {
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== "");
}

/** Tells whether every term appears in the message, ignoring case (no terms: true). */
export function messageMatchesSearch(message: string, terms: string[]): boolean {
  const text = message.toLowerCase();
  return terms.every((term) => text.includes(term.toLowerCase()));
}

/** A filter value counts as unset when missing, blank or "all". */
function filterValue(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === "" || text.toLowerCase() === "all" ? null : text;
}

/** Tells whether the id is already listed (numbers and numeric strings compare equal). */
function hasId(
  existingIds: ReadonlySet<number | string> | ReadonlyArray<number | string>,
  id: number | string,
): boolean {
  if ("has" in existingIds && existingIds.has(id)) return true;
  const wanted = String(id);
  for (const existing of existingIds) if (String(existing) === wanted) return true;
  return false;
}

/**
 * Decides whether a live alert joins the list: matches the agency, type, area and search filters, the
 * unit view when it is on (`view`; issue 26), is no machine page unless they are shown, and is new.
 */
export function admitLiveAlert(
  alert: {
    id: number | string;
    type?: string | null;
    agency_id?: number | string | null;
    area?: string | null;
    message: string;
    units?: readonly { id: number }[] | null;
    is_machine?: boolean | null;
  },
  filters: {
    agencyId?: number | string | null;
    type?: string | null;
    area?: string | null;
    search?: string | null;
    view?: UnitViewScope | null;
    showMachine?: boolean;
  },
  existingIds: ReadonlySet<number | string> | ReadonlyArray<number | string>,
): boolean {
  if (alert.is_machine && !filters.showMachine) return false;
  if (filters.view && !alertInUnitView(alert, filters.view)) return false;
  const agency = filterValue(filters.agencyId);
  if (agency !== null && String(alert.agency_id ?? "").trim() !== agency) return false;
  const type = filterValue(filters.type);
  if (type !== null && normalizeAlertType(alert.type) !== normalizeAlertType(type)) return false;
  const area = filterValue(filters.area);
  if (area !== null && (alert.area ?? "").trim().toLowerCase() !== area.toLowerCase()) return false;
  if (!messageMatchesSearch(alert.message, parseSearchTerms(filters.search ?? ""))) return false;
  return !hasId(existingIds, alert.id);
}
