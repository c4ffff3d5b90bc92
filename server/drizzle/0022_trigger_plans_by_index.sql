-- The set statements of the ingest path's two statement triggers are planned once per connection again,
-- with the planner held to index lookups (issue 16).
--
-- Migration 0019 had them planned at every call (EXECUTE), because a plan PL/pgSQL cached while alerts or
-- search_words was small (a hash join over a sequential scan) stayed in use as the table grew. Planning
-- at every call cost ~0.25 ms of each single-message ingest (~1.0 ms in all; measured with pgbench, one
-- client calling ingest_messages). With sequential scans, hash joins and merge joins switched off inside
-- these functions, the only plan left joins a batch's rows to the table by its index, whatever the
-- table's size when the plan was made, and stays right for any batch size: one index lookup per new
-- recipient (alerts' primary key) and per distinct word (search_words_word_idx). A statement with no
-- index to use (TRUNCATE's update) still scans, as before.
CREATE OR REPLACE FUNCTION sync_alert_agency_ids() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
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
  EXECUTE 'SELECT count(*) FROM (SELECT 1 FROM alerts WHERE id = ANY ($1) ORDER BY id FOR UPDATE) locked'
    USING changed;
  EXECUTE $sql$
    UPDATE alerts a
       SET agency_ids = alert_agency_ids(a.id)
     WHERE a.id = ANY ($1) AND a.agency_ids IS DISTINCT FROM alert_agency_ids(a.id)
  $sql$ USING changed;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION add_search_words() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    INSERT INTO search_words (word)
      SELECT DISTINCT w FROM new_alerts a, unnest(string_to_array(lower(a.message), ' ')) AS w
       WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w);
  ELSE
    INSERT INTO search_words (word)
      SELECT DISTINCT w FROM unnest(string_to_array(lower(NEW.message), ' ')) AS w
       WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w);
  END IF;
  RETURN NULL;
END
$$;
