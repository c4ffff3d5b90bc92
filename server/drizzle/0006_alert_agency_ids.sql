-- alerts.agency_ids: the agencies of an alert's recipients (alert_recipients.agency_id), distinct and
-- ascending, '{}' when it has none. A viewer's agency scope is `agency_ids && ARRAY[...]`, which one GIN
-- index over (agency_ids, message gin_trgm_ops) answers together with the search words, instead of an
-- EXISTS on alert_recipients that no index can combine with "message contains FIRE". It replaces the
-- trigram-only index: a search without an agency scope uses the message column of the same index.
-- The trigram index goes first so that filling the column does not rebuild it.
DROP INDEX "alerts_message_trgm_idx";
--> statement-breakpoint
-- The agencies of one alert's recipients, as agency_ids keeps them.
CREATE FUNCTION alert_agency_ids(alert bigint) RETURNS integer[] LANGUAGE sql STABLE AS $$
  SELECT ARRAY(SELECT DISTINCT r.agency_id FROM alert_recipients r WHERE r.alert_id = alert ORDER BY 1)
$$;
--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "agency_ids" integer[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
-- Filled by rewriting the table rather than by an UPDATE: an UPDATE inside the migrations' transaction
-- leaves every old row version in place, and the index built next would hold both versions of every
-- alert (1.8x its size at a million alerts, space VACUUM frees but never returns).
ALTER TABLE "alerts" ALTER COLUMN "agency_ids" TYPE integer[] USING alert_agency_ids(id);
--> statement-breakpoint
SET LOCAL maintenance_work_mem = '256MB';
--> statement-breakpoint
CREATE INDEX "alerts_agency_ids_message_idx" ON "alerts" USING gin ("agency_ids","message" gin_trgm_ops);
--> statement-breakpoint
-- The planner's estimates for the scope need the new column's statistics (element frequencies), and a
-- rewrite does not prompt autovacuum to gather them. Not on an empty table: statistics saying "empty"
-- make plans cached while it is small (the ingest function's, the foreign key checks') scan it whole
-- for as long as they live, which stalled a fresh database's ingest for seconds per batch.
DO $$
BEGIN
  IF EXISTS (SELECT FROM alerts) THEN
    ANALYZE alerts;
  END IF;
END
$$;
--> statement-breakpoint
-- Keeps agency_ids equal to the recipients' agencies, one statement-level trigger per kind of change
-- (each sees only the transition tables it has). Ingest adds recipients one statement per message, so
-- the INSERT path is one UPDATE that writes nothing when the alert already lists the agency.
-- Concurrency (READ COMMITTED):
-- - INSERT: adding recipients only ever adds agencies, so the new set is the stored one plus theirs,
--   computed from the row being updated; an UPDATE that waits for another transaction's update of the
--   same alert re-reads the row, so two transactions adding agencies to one alert keep both.
-- - UPDATE and DELETE: the agencies are counted again from alert_recipients, after locking the alerts
--   FOR UPDATE (in id order). That lock conflicts with the FOR KEY SHARE lock the foreign key check of
--   an uncommitted new recipient holds on its alert, so the count waits for such a transaction and, in a
--   statement with a fresh snapshot, includes its recipients; a recipient added later waits for this
--   transaction instead, and then adds its agency to what this one wrote.
CREATE FUNCTION sync_alert_agency_ids() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE alerts a
       SET agency_ids = ARRAY(SELECT DISTINCT x FROM unnest(a.agency_ids || n.agency_ids) AS x ORDER BY 1)
      FROM (SELECT alert_id, array_agg(agency_id) AS agency_ids FROM new_recipients GROUP BY alert_id) n
     WHERE a.id = n.alert_id AND NOT a.agency_ids @> n.agency_ids;
    RETURN NULL;
  ELSIF TG_OP = 'DELETE' THEN
    changed := ARRAY(SELECT DISTINCT alert_id FROM old_recipients);
  ELSIF TG_OP = 'UPDATE' THEN
    -- Only alerts whose (alert, agency) pairs changed: an update that keeps every agency writes nothing.
    changed := ARRAY(
      SELECT alert_id FROM (SELECT alert_id, agency_id FROM new_recipients
                            EXCEPT SELECT alert_id, agency_id FROM old_recipients) added
      UNION
      SELECT alert_id FROM (SELECT alert_id, agency_id FROM old_recipients
                            EXCEPT SELECT alert_id, agency_id FROM new_recipients) removed);
  ELSE -- TRUNCATE
    UPDATE alerts SET agency_ids = '{}' WHERE agency_ids <> '{}';
    RETURN NULL;
  END IF;
  IF cardinality(changed) = 0 THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM alerts WHERE id = ANY (changed) ORDER BY id FOR UPDATE;
  UPDATE alerts a
     SET agency_ids = alert_agency_ids(a.id)
   WHERE a.id = ANY (changed) AND a.agency_ids IS DISTINCT FROM alert_agency_ids(a.id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER alert_recipients_agency_ids_insert
  AFTER INSERT ON alert_recipients
  REFERENCING NEW TABLE AS new_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION sync_alert_agency_ids();
--> statement-breakpoint
CREATE TRIGGER alert_recipients_agency_ids_update
  AFTER UPDATE ON alert_recipients
  REFERENCING OLD TABLE AS old_recipients NEW TABLE AS new_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION sync_alert_agency_ids();
--> statement-breakpoint
CREATE TRIGGER alert_recipients_agency_ids_delete
  AFTER DELETE ON alert_recipients
  REFERENCING OLD TABLE AS old_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION sync_alert_agency_ids();
--> statement-breakpoint
CREATE TRIGGER alert_recipients_agency_ids_truncate
  AFTER TRUNCATE ON alert_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION sync_alert_agency_ids();
