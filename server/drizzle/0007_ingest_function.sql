-- Custom SQL migration file, put your code below! --
-- Ingest in one round trip (see ingestMessages in server/src/modules/ingest/service.ts). A receiver
-- posting one message per request (PagerMon's reader) used to cost five round trips to the database
-- per message; now the whole batch is one statement, run in its own transaction (autocommit).

-- A counter of changes to the grouping settings and patterns, bumped by a statement trigger on each
-- (so an edit made straight in the table counts too). The server caches settings and patterns with
-- the counter's value and reads them again when it changes; ingest_messages checks it under its locks.
CREATE TABLE grouping_version (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL DEFAULT 0
);
--> statement-breakpoint
INSERT INTO grouping_version DEFAULT VALUES;
--> statement-breakpoint
CREATE FUNCTION bump_grouping_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE grouping_version SET version = version + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER grouping_settings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON grouping_settings
  FOR EACH STATEMENT EXECUTE FUNCTION bump_grouping_version();
--> statement-breakpoint
CREATE TRIGGER grouping_patterns_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON grouping_patterns
  FOR EACH STATEMENT EXECUTE FUNCTION bump_grouping_version();
--> statement-breakpoint
-- PL/pgSQL so its plan is cached per connection (a SQL function with a FROM is planned on every call).
CREATE FUNCTION ingest_grouping_stamp() RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT version::text FROM grouping_version);
END
$$;
--> statement-breakpoint

-- Stores a batch of prepared pager messages (type, displayed text, text hash, job number and address
-- come from the server, which computes them with the domain rules), in input order:
--   batch = { stamp, locks: [bigint as text], dedupe_seconds, group_hours,
--             unmapped: {code, name}, messages: [{capcode, source, id, type, raw_message, message,
--             hash, job_number, primary_address, has_mappable_address, directions_url, latitude,
--             longitude, sent_at}] }
-- 1. Takes the advisory locks (in key order) that serialise batches sharing a text, an idempotency key
--    or a job number. Each later statement of this VOLATILE function takes a new snapshot, so the reads
--    below see every batch that held a lock before us.
-- 2. When the grouping settings changed (their version) since the server computed the job numbers,
--    stores nothing and returns {stale: true}; the server reads them again and calls again.
-- 3. Per message: a stored idempotency key (source + id) is a duplicate of its alert; the same text
--    inside the duplicate window (or earlier in this batch) adds the capcode as a recipient of that
--    alert ("merged" when the recipient is new, else "duplicate"); anything else is a new alert, in the
--    open group of its job number (a new group when there is none inside the window), with its
--    capcode as first recipient. Unknown capcodes are created under the UNMAPPED agency.
-- Returns {results: [{id, status}], created: [alert rows], added: [{alert_id, agency_id, capcode_id}]}.
CREATE FUNCTION ingest_messages(batch jsonb) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  m record;
  cap record;
  alert_row alerts%ROWTYPE;
  unmapped_id integer;
  existing_id bigint;
  is_new boolean;
  group_id integer;
  dedupe_window interval := make_interval(secs => (batch->>'dedupe_seconds')::double precision);
  group_window interval := make_interval(hours => (batch->>'group_hours')::integer);
  -- Alerts and groups this call created, by text hash and job number: found even with a zero window.
  created_by_hash jsonb := '{}';
  group_by_job jsonb := '{}';
  results jsonb[] := '{}';
  created jsonb[] := '{}';
  added jsonb[] := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(k)
     FROM (SELECT jsonb_array_elements_text(batch->'locks')::bigint AS k ORDER BY 1) AS keys;
  IF ingest_grouping_stamp() IS DISTINCT FROM batch->>'stamp' THEN
    RETURN jsonb_build_object('stale', true);
  END IF;

  FOR m IN
    SELECT t.* FROM jsonb_array_elements(batch->'messages') WITH ORDINALITY AS e(value, ord),
           jsonb_to_record(e.value) AS t(
             capcode text, source text, id text, type text, raw_message text, message text, hash text,
             job_number text, primary_address text, has_mappable_address boolean, directions_url text,
             latitude text, longitude text, sent_at timestamptz)
     ORDER BY e.ord
  LOOP
    IF m.id IS NOT NULL THEN
      SELECT a.id INTO existing_id FROM alerts a WHERE a.source = m.source AND a.source_message_id = m.id;
      IF FOUND THEN
        results := results || jsonb_build_object('id', existing_id, 'status', 'duplicate');
        CONTINUE;
      END IF;
    END IF;

    SELECT c.id, c.agency_id, c.area INTO cap FROM capcodes c WHERE c.capcode = m.capcode;
    IF NOT FOUND THEN
      IF unmapped_id IS NULL THEN
        INSERT INTO agencies (code, name) VALUES (batch->'unmapped'->>'code', batch->'unmapped'->>'name')
          ON CONFLICT (code) DO UPDATE SET updated_at = now()
          RETURNING id INTO unmapped_id;
      END IF;
      -- Another batch may be creating it too: ON CONFLICT waits for that one and the SELECT then sees it.
      INSERT INTO capcodes (capcode, agency_id) VALUES (m.capcode, unmapped_id) ON CONFLICT (capcode) DO NOTHING;
      SELECT c.id, c.agency_id, c.area INTO cap FROM capcodes c WHERE c.capcode = m.capcode;
    END IF;

    existing_id := (created_by_hash->>m.hash)::bigint;
    IF existing_id IS NULL AND dedupe_window > interval '0' THEN
      -- Ordered by the index's own columns: an ORDER BY id would let a plan cached while the table was
      -- small walk the primary key backwards through every alert (seen: 23 ms per message at 100k).
      SELECT a.id INTO existing_id FROM alerts a
       WHERE a.dedupe_hash = m.hash AND a.created_at > now() - dedupe_window
       ORDER BY a.created_at DESC, a.id DESC LIMIT 1;
    END IF;
    IF existing_id IS NOT NULL THEN
      INSERT INTO alert_recipients (alert_id, capcode_id, agency_id) VALUES (existing_id, cap.id, cap.agency_id)
        ON CONFLICT DO NOTHING;
      is_new := FOUND;
      IF is_new THEN
        added := added || jsonb_build_object('alert_id', existing_id, 'agency_id', cap.agency_id, 'capcode_id', cap.id);
      END IF;
      results := results || jsonb_build_object('id', existing_id, 'status', CASE WHEN is_new THEN 'merged' ELSE 'duplicate' END);
      CONTINUE;
    END IF;

    group_id := NULL;
    IF m.job_number IS NOT NULL THEN
      group_id := (group_by_job->>m.job_number)::integer;
      IF group_id IS NULL THEN
        SELECT g.id INTO group_id FROM alert_groups g
         WHERE g.job_number = m.job_number AND g.last_alert_at > now() - group_window
         ORDER BY g.last_alert_at DESC, g.id DESC LIMIT 1;
      END IF;
      IF group_id IS NULL THEN
        INSERT INTO alert_groups (job_number, agency_id, has_emergency, message_count, first_alert_at, last_alert_at)
          VALUES (m.job_number, cap.agency_id, m.type = 'emergency', 1, now(), now())
          RETURNING id INTO group_id;
      ELSE
        UPDATE alert_groups
           SET message_count = message_count + 1,
               has_emergency = has_emergency OR m.type = 'emergency',
               last_alert_at = greatest(last_alert_at, now())
         WHERE id = group_id;
      END IF;
      group_by_job := group_by_job || jsonb_build_object(m.job_number, group_id);
    END IF;

    -- agency_ids written now, so the recipients trigger (migration 0006) finds nothing to update.
    INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, area, job_number,
                        group_id, primary_address, has_mappable_address, directions_url, latitude, longitude,
                        source, source_message_id, dedupe_hash, sent_at)
      VALUES (m.type, m.raw_message, m.message, m.capcode, cap.id, cap.agency_id, ARRAY[cap.agency_id], cap.area,
              m.job_number, group_id, m.primary_address, coalesce(m.has_mappable_address, false), m.directions_url,
              m.latitude, m.longitude, m.source, m.id, m.hash, m.sent_at)
      RETURNING * INTO alert_row;
    INSERT INTO alert_recipients (alert_id, capcode_id, agency_id) VALUES (alert_row.id, cap.id, cap.agency_id);
    created_by_hash := created_by_hash || jsonb_build_object(m.hash, alert_row.id);
    created := created || to_jsonb(alert_row);
    added := added || jsonb_build_object('alert_id', alert_row.id, 'agency_id', cap.agency_id, 'capcode_id', cap.id);
    results := results || jsonb_build_object('id', alert_row.id, 'status', 'created');
  END LOOP;

  RETURN jsonb_build_object('results', to_jsonb(results), 'created', to_jsonb(created), 'added', to_jsonb(added));
END
$$;
