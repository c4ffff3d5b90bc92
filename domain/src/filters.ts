import { z } from "zod/mini";

/** Per-agency filter choice: no saved row (default, shown), show, or hide. */
export type FilterState = "default" | "show" | "hide";

/** The state after a click in the filter settings (SPEC 4): default -> hide, show -> hide, hide -> show. */
export function nextFilterState(state: FilterState): FilterState {
  return state === "hide" ? "show" : "hide";
}

/** The state a saved user-filter row stands for; no row means default. */
export function filterStateFromRow(row: { is_enabled: boolean } | undefined): FilterState {
  if (row === undefined) return "default";
  return row.is_enabled ? "show" : "hide";
}

/** Tells whether an agency's alerts appear: default and show are visible, hide is not. */
export function isAgencyVisible(state: FilterState): boolean {
  return state !== "hide";
}

/**
 * Tells whether the user's saved filters hide every agency they may see: at least one agency, and
 * a hiding row for each (a user with no agency at all is a different case: nobody assigned them).
 */
export function hidesEveryAgency(
  agencyValues: readonly string[],
  filters: ReadonlyArray<{ filter_type: string; filter_value: string; is_enabled: boolean }>,
): boolean {
  const hidden = new Set(
    filters.filter((row) => row.filter_type === "agency" && !row.is_enabled).map((row) => row.filter_value),
  );
  return agencyValues.length > 0 && agencyValues.every((value) => hidden.has(value));
}

/** Turns held filter states into the rows of POST /user-filters/bulk (default states are not sent). */
export function toBulkFilters(
  states: Readonly<Record<string, FilterState>>,
): Array<{ filter_type: "agency"; filter_value: string; is_enabled: boolean }> {
  return Object.entries(states)
    .filter(([, state]) => state !== "default")
    .map(([filterValue, state]) => ({
      filter_type: "agency",
      filter_value: filterValue,
      is_enabled: state === "show",
    }));
}

/** One user-filter row as sent by the web app; only 'agency' filters exist. */
export const userFilterInputSchema = z.object({
  filter_type: z.literal("agency"),
  filter_value: z.pipe(
    z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
    z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  ),
  is_enabled: z.boolean(),
});
/** A validated user-filter row. */
export type UserFilterInput = z.output<typeof userFilterInputSchema>;

/** Body of POST /user-filters/bulk. */
export const bulkFiltersSchema = z.object({
  filters: z.array(userFilterInputSchema).check(z.maxLength(1000)),
});
/** A validated bulk filter save. */
export type BulkFilters = z.output<typeof bulkFiltersSchema>;
