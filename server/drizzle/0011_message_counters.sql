CREATE TABLE "message_count_deltas" (
	"hour" timestamp with time zone NOT NULL,
	"type" varchar(16) NOT NULL,
	"agency_id" integer NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_counts" (
	"hour" timestamp with time zone NOT NULL,
	"type" varchar(16) NOT NULL,
	"agency_id" integer NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "message_counts_hour_type_agency_id_pk" PRIMARY KEY("hour","type","agency_id")
);
--> statement-breakpoint
-- The monitor's message figures (GET /api/admin/system/messages) come from these two tables, never
-- from a count(*) over alerts: the monitor refreshes every 60 s on every open console, and alerts
-- reaches ten million rows. Statement triggers on alerts append the change per (hour, type, agency):
-- one small heap insert per ingest statement, no index to update and no row shared between concurrent
-- ingests (an upsert of a shared counter would make batches wait on each other and could deadlock two
-- batches that touch two counters in opposite orders). The monitor folds the deltas into
-- message_counts under an advisory lock, and reads counts plus deltas in one snapshot, so the figures
-- are exact.
-- Buckets are UTC hours of created_at (when Turnout received the message), whatever the session's
-- time zone.
CREATE FUNCTION count_inserted_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_count_deltas (hour, type, agency_id, n)
    SELECT date_trunc('hour', created_at, 'UTC'), type, agency_id, count(*) FROM new_alerts GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION count_deleted_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_count_deltas (hour, type, agency_id, n)
    SELECT date_trunc('hour', created_at, 'UTC'), type, agency_id, -count(*) FROM old_alerts GROUP BY 1, 2, 3;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- An update moves a count only when it changes the type, agency or receipt time: old rows count -1 and
-- new rows +1, and an unchanged row cancels itself out (the agency_ids updates of merges write nothing).
CREATE FUNCTION count_updated_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_count_deltas (hour, type, agency_id, n)
    SELECT hour, type, agency_id, sum(n) FROM (
      SELECT date_trunc('hour', created_at, 'UTC') AS hour, type, agency_id, -1 AS n FROM old_alerts
      UNION ALL
      SELECT date_trunc('hour', created_at, 'UTC'), type, agency_id, 1 FROM new_alerts
    ) AS changes
    GROUP BY 1, 2, 3
    HAVING sum(n) <> 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION count_truncated_alerts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM message_count_deltas;
  DELETE FROM message_counts;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER alerts_counted_insert AFTER INSERT ON alerts
  REFERENCING NEW TABLE AS new_alerts FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_alerts();
--> statement-breakpoint
CREATE TRIGGER alerts_counted_delete AFTER DELETE ON alerts
  REFERENCING OLD TABLE AS old_alerts FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_alerts();
--> statement-breakpoint
CREATE TRIGGER alerts_counted_update AFTER UPDATE ON alerts
  REFERENCING OLD TABLE AS old_alerts NEW TABLE AS new_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION count_updated_alerts();
--> statement-breakpoint
CREATE TRIGGER alerts_counted_truncate AFTER TRUNCATE ON alerts
  FOR EACH STATEMENT EXECUTE FUNCTION count_truncated_alerts();
--> statement-breakpoint
-- The alerts already stored: one pass, in the same transaction as the triggers, so none is missed or
-- counted twice. Hours before the last 48 are merged into one row per type and agency at the earliest
-- hour, as the monitor's fold keeps them (HOURLY_FOR_HOURS in server/src/modules/system/message-metrics.ts).
INSERT INTO message_counts (hour, type, agency_id, count)
  SELECT coalesce(bucket, min(hour)), type, agency_id, sum(n)
    FROM (SELECT hour, CASE WHEN hour >= date_trunc('hour', now(), 'UTC') - interval '48 hours' THEN hour END AS bucket,
                 type, agency_id, n
            FROM (SELECT date_trunc('hour', created_at, 'UTC') AS hour, type, agency_id, count(*) AS n
                    FROM alerts GROUP BY 1, 2, 3) AS hourly) AS keyed
   GROUP BY bucket, type, agency_id;
