import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";

/** Any number, so long as only this module folds message counts (pg advisory lock key). */
const FOLD_LOCK_KEY = 7_301_110;

/**
 * Hours older than this are merged into one row per type and agency (its hour the earliest merged), so
 * message_counts stays near 49 hours x types x agencies rows however long the history: the figures
 * need only the total, today, this hour and the first hour. Must match migration 0011's backfill.
 */
export const HOURLY_FOR_HOURS = 48;

/**
 * Folds the appended count changes into message_counts (migration 0011) and merges aged hours. One
 * folder at a time: another caller skips it (its read still sees counts plus deltas, so its figures
 * are exact). Resolves to the number of delta rows folded, or null when another fold was running.
 */
export async function foldMessageCounts(db: Database): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [lock] = rowsOf<{ locked: boolean }>(
      await tx.execute(sql`SELECT pg_try_advisory_xact_lock(${FOLD_LOCK_KEY}) AS locked`),
    );
    if (!lock?.locked) return null;
    const cutoff = sql`date_trunc('hour', now(), 'UTC') - make_interval(hours => ${HOURLY_FOR_HOURS})`;
    // Aged rows (the merged ones of earlier folds included) go back among the deltas to be merged
    // below; two statements, as one statement may not delete and re-insert the same key.
    await tx.execute(sql`
      WITH aged AS (DELETE FROM message_counts WHERE hour < ${cutoff} RETURNING hour, type, agency_id, count)
      INSERT INTO message_count_deltas (hour, type, agency_id, n) SELECT * FROM aged`);
    const [moved] = rowsOf<{ folded: number }>(
      await tx.execute(sql`
        WITH moved AS (DELETE FROM message_count_deltas RETURNING hour, type, agency_id, n),
        keyed AS (
          SELECT CASE WHEN hour >= ${cutoff} THEN hour END AS bucket, hour, type, agency_id, n FROM moved
        ),
        folded AS (
          INSERT INTO message_counts (hour, type, agency_id, count)
            SELECT coalesce(bucket, min(hour)), type, agency_id, sum(n) FROM keyed GROUP BY bucket, type, agency_id
            ON CONFLICT (hour, type, agency_id) DO UPDATE SET count = message_counts.count + excluded.count
        )
        SELECT count(*)::int AS folded FROM moved`),
    );
    return Number(moved?.folded ?? 0);
  });
}

type CountRow = {
  type: string;
  agency_id: number;
  agency_name: string | null;
  total: string | number;
  today: string | number;
  this_hour: string | number;
  first_hour: Date | string | null;
};

/**
 * SPEC 3 'Message metrics' from the hourly counters, never from the alerts table: exact totals (so
 * `estimated` is empty), today since the server's local midnight, this hour since the start of the
 * current UTC hour, the average per day since the first counted hour, and the distributions by type
 * and by the alert's agency (the agency of the capcode it was first paged to), with percentages.
 */
export async function messageMetrics(db: Database, now = new Date()) {
  await foldMessageCounts(db);
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const rows = rowsOf<CountRow>(
    await db.execute(sql`
    SELECT c.type, c.agency_id, a.name AS agency_name, sum(c.n) AS total,
           coalesce(sum(c.n) FILTER (WHERE c.hour >= date_trunc('hour', ${midnight.toISOString()}::timestamptz, 'UTC')), 0) AS today,
           coalesce(sum(c.n) FILTER (WHERE c.hour >= date_trunc('hour', ${now.toISOString()}::timestamptz, 'UTC')), 0) AS this_hour,
           min(c.hour) AS first_hour
      FROM (SELECT hour, type, agency_id, count AS n FROM message_counts
            UNION ALL
            SELECT hour, type, agency_id, n FROM message_count_deltas) AS c
      LEFT JOIN agencies a ON a.id = c.agency_id
     GROUP BY c.type, c.agency_id, a.name
    HAVING sum(c.n) <> 0`),
  );
  return summarise(rows, now);
}

/** Largest count first, then by name, so equal counts keep a stable order between refreshes. */
const largestFirst = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);

function summarise(rows: CountRow[], now: Date) {
  let total = 0;
  let today = 0;
  let thisHour = 0;
  let first: number | null = null;
  const byType = new Map<string, number>();
  const byAgency = new Map<string, number>();
  for (const r of rows) {
    const n = Number(r.total);
    total += n;
    today += Number(r.today);
    thisHour += Number(r.this_hour);
    if (r.first_hour !== null) {
      const t = new Date(r.first_hour).getTime();
      first = first === null ? t : Math.min(first, t);
    }
    byType.set(r.type, (byType.get(r.type) ?? 0) + n);
    const agency = r.agency_name ?? `Agency ${r.agency_id}`;
    byAgency.set(agency, (byAgency.get(agency) ?? 0) + n);
  }
  const share = (n: number) => (total > 0 ? Math.round((n / total) * 1000) / 10 : 0);
  // Days counted from the first counted hour to now, at least one, so a first day is not divided by zero.
  const days = first === null ? 1 : Math.max(1, (now.getTime() - first) / 86_400_000);
  return {
    total_messages: total,
    messages_today: today,
    messages_this_hour: thisHour,
    average_per_day: Math.round((total / days) * 10) / 10,
    type_distribution: [...byType]
      .sort(largestFirst)
      .map(([type, count]) => ({ type, count, percentage: share(count) })),
    agency_distribution: [...byAgency].sort(largestFirst).map(([agency_name, message_count]) => ({
      agency_name,
      message_count,
      percentage: share(message_count),
    })),
    estimated: [] as string[],
  };
}
