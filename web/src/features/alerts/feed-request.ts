import { ALERT_PAGE_SIZE, type AlertType, type FeedView } from "@turnout/domain";
import { fetchEarly, type QueryValue } from "../../api/client";

// What a feed page asks the server for, apart from alerts-api (and its response schemas): the entry
// chunk asks for the first page early (fetchFirstFeedPageEarly) with the same address the feed uses.

/**
 * The feed filters of the chips bar; all of them go to the server as query parameters. `view` (issue
 * 26): the member's units (the default) or their whole agencies; `showMachine`: machine and test pages.
 */
export interface FeedFilters {
  search: string;
  type: AlertType | null;
  area: string | null;
  agency: { id: string; name: string } | null;
  view: FeedView;
  showMachine: boolean;
}

export const NO_FILTERS: FeedFilters = {
  search: "",
  type: null,
  area: null,
  agency: null,
  view: "units",
  showMachine: false,
};

/**
 * How the feed is read: `adminContext` (admins) covers every agency, UNMAPPED included; `limit`, cards
 * per page (ALERT_PAGE_SIZE unless said).
 */
export interface FeedOptions {
  adminContext?: boolean;
  limit?: number;
}

export const FEED_PAGE_PATH = "/alerts/search";

/** The query of one feed page (GET /alerts/search?grouped=true), newest first, 50 cards unless said. */
export function feedPageQuery(
  filters: FeedFilters,
  cursor: string | null,
  options: FeedOptions = {},
): Record<string, QueryValue> {
  return {
    limit: options.limit ?? ALERT_PAGE_SIZE,
    grouped: true,
    search: filters.search.trim() || undefined,
    type: filters.type ?? undefined,
    area: filters.area ?? undefined,
    agency_id: filters.agency?.id,
    cursor: cursor ?? undefined,
    admin_context: options.adminContext ? true : undefined,
    view: options.adminContext ? undefined : filters.view,
    show_machine: filters.showMachine ? true : undefined,
  };
}

export const MEMBER_VIEW_PATH = "/units/mine";

/**
 * The member's first feed page (no filters) and their view (the chips above it), asked for at start
 * with a session stored, so they arrive while the dashboard's code downloads rather than after it has
 * rendered (issue 31).
 */
export function fetchFirstFeedPageEarly(): void {
  fetchEarly(FEED_PAGE_PATH, feedPageQuery(NO_FILTERS, null));
  fetchEarly(MEMBER_VIEW_PATH);
}
