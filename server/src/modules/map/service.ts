import { ALERT_PAGE_SIZE_MAX, type FeedView, POSITION_PRECISIONS, type Position } from "@turnout/domain";
import type { Database } from "../../db/client.js";
import { positionsOf } from "../../shared/alerts/positions.js";
import type { PresentedAlert } from "../../shared/alerts/present.js";
import type { Actor } from "../../shared/guard.js";

/** The most pages of the feed one map reads (ALERT_PAGE_SIZE_MAX alerts each). */
export const MAP_PAGES_MAX = 5;

/**
 * One page of the viewer's feed, newest first (the alerts module's search: the assembly, app.ts, hands
 * it to the map's routes, so that the map does not import another module).
 */
export type FeedReader = (
  db: Database,
  actor: Actor,
  input: { limit: number; view?: FeedView; cursor?: string },
) => Promise<{ data: unknown[]; pagination: { has_more: boolean; next_cursor: string | null } }>;

/** One job on the map: its newest page as the feed shows it, how many pages it has, and where it is. */
export type MapJob = { alert: PresentedAlert; pages: number; position: Position | null };

const rank = (p: Position) => POSITION_PRECISIONS.indexOf(p.precision);

/**
 * Groups the alerts (newest first) into jobs by their job group: the newest page stands for the job,
 * and the job is where its best placed page is (coordinates before street, intersection, suburb).
 */
export function jobsOf(
  alerts: readonly PresentedAlert[],
  positions: ReadonlyMap<number, Position>,
): MapJob[] {
  const jobs = new Map<string, MapJob>();
  for (const alert of alerts) {
    const key = alert.group_id === null ? `alert:${alert.id}` : `group:${alert.group_id}`;
    const job = jobs.get(key) ?? { alert, pages: 0, position: null };
    job.pages += 1;
    const position = positions.get(alert.id);
    if (position && (!job.position || rank(position) < rank(job.position))) job.position = position;
    jobs.set(key, job);
  }
  return [...jobs.values()];
}

/**
 * The jobs of the viewer's feed (their view: units or agencies, their filters) paged in the last
 * `hours`, newest first, with their positions: at most MAP_PAGES_MAX pages of the feed are read, and
 * `truncated` says when more were in the window.
 */
export async function mapJobs(
  db: Database,
  readFeed: FeedReader,
  actor: Actor,
  input: { hours: number; view?: FeedView },
  now = new Date(),
) {
  const since = new Date(now.getTime() - input.hours * 3_600_000);
  const alerts: PresentedAlert[] = [];
  let cursor: string | undefined;
  let truncated = false;
  for (let page = 0; page < MAP_PAGES_MAX; page++) {
    const result = await readFeed(db, actor, { limit: ALERT_PAGE_SIZE_MAX, view: input.view, cursor });
    // Not grouped: every item is an alert.
    const pageAlerts = result.data as PresentedAlert[];
    const inWindow = pageAlerts.filter((a) => new Date(a.sent_at) >= since);
    alerts.push(...inWindow);
    if (inWindow.length < pageAlerts.length || !result.pagination.has_more) break;
    cursor = result.pagination.next_cursor ?? undefined;
    if (page === MAP_PAGES_MAX - 1) truncated = true;
  }
  const jobs = jobsOf(
    alerts,
    await positionsOf(
      db,
      alerts.map((a) => a.id),
    ),
  );
  return {
    since: since.toISOString(),
    hours: input.hours,
    truncated,
    jobs: jobs.filter((job) => job.position !== null),
    /** Jobs in the window that no address places (they stay in the list). */
    unplaced: jobs.filter((job) => job.position === null).map((job) => job.alert.id),
  };
}
