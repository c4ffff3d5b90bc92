-- The set statements of two statement triggers are planned at each call (EXECUTE), not once per
-- connection (issue 16).
--
-- PL/pgSQL keeps a statement's plan for the connection's lifetime, until an ANALYZE of its tables
-- invalidates it. Since ingest writes a batch in one statement (migration 0017), the first batch a
-- connection wrote into a small alerts table had these statements planned as hash joins over a
-- sequential scan of alerts (agency ids) and of search_words (new words), and kept so: with autovacuum
-- off, as on the benchmark machine, after 60,000 alerts every single message scanned all of alerts
-- (40-90 ms a message instead of 2). Planned at each call (~0.1 ms), each statement sees the tables'
-- current size (the planner reads their block counts even without statistics) and looks the batch's
-- alerts and words up by index.
CREATE OR REPLACE FUNCTION sync_alert_agency_ids() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $sql$
      UPDATE alerts a
         SET agency_ids = ARRAY(SELECT DISTINCT x FROM unnest(a.agency_ids || n.agency_ids) AS x ORDER BY 1)
        FROM (SELECT alert_id, array_agg(agency_id) AS agency_ids FROM new_recipients GROUP BY alert_id) n
       WHERE a.id = n.alert_id AND NOT a.agency_ids @> n.agency_ids
    $sql$;
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
CREATE OR REPLACE FUNCTION add_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    EXECUTE $sql$
      INSERT INTO search_words (word)
        SELECT DISTINCT w FROM new_alerts a, unnest(string_to_array(lower(a.message), ' ')) AS w
         WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w)
    $sql$;
  ELSE
    INSERT INTO search_words (word)
      SELECT DISTINCT w FROM unnest(string_to_array(lower(NEW.message), ' ')) AS w
       WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w);
  END IF;
  RETURN NULL;
END
$$;
