-- Ingest writes a batch's rows in three statements instead of three per message (issue 16).
--
-- ingest_messages (migrations 0007, 0013) inserted each new alert, its recipient and its message id one
-- statement at a time, so every message fired the statement triggers of alerts (add_search_words,
-- migration 0016) and alert_recipients (sync_alert_agency_ids, queue_rule_matching), each building its
-- transition table, for one row. Now the loop decides as before, message by message in input order
-- (duplicates, capcodes, the duplicate window, job groups), and collects the rows; each new alert gets
-- its id from the sequence in that order, so later messages of the batch can merge into it. After the
-- loop one INSERT writes the batch's alerts, one its recipients and one its message ids; each trigger
-- fires once per batch, as for any multi-row insert.
--
-- What the loop must now know itself, because the rows are not in the tables yet:
-- - a message id seen earlier in the batch (id_by_key) is a duplicate of that alert;
-- - a recipient already added in the batch (pairs) or stored is not added again: a copy of a stored
--   alert is 'merged' only when its capcode is not among the alert's recipients. Only a message with
--   the same text hash merges into an alert, and that hash's advisory lock is held, so no other ingest
--   adds a recipient to it meanwhile (ON CONFLICT DO NOTHING stays as a guard).
CREATE OR REPLACE FUNCTION ingest_messages(batch jsonb) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  m record;
  cap record;
  unmapped_id integer;
  alert_ids regclass := pg_get_serial_sequence('alerts', 'id')::regclass;
  existing_id bigint;
  new_id bigint;
  id_key text;
  pair text;
  is_new boolean;
  group_id integer;
  dedupe_window interval := make_interval(secs => (batch->>'dedupe_seconds')::double precision);
  group_window interval := make_interval(hours => (batch->>'group_hours')::integer);
  -- What this call creates, found even with a zero window: alerts by text hash, groups by job number,
  -- alerts by message id (source, id), and recipients ('alert:capcode').
  created_by_hash jsonb := '{}';
  group_by_job jsonb := '{}';
  id_by_key jsonb := '{}';
  pairs jsonb := '{}';
  results jsonb[] := '{}';
  added jsonb[] := '{}';
  created jsonb := '[]';
  -- The rows written after the loop, column by column.
  a_id bigint[] := '{}';
  a_type text[] := '{}';
  a_raw text[] := '{}';
  a_message text[] := '{}';
  a_capcode text[] := '{}';
  a_capcode_id integer[] := '{}';
  a_agency_id integer[] := '{}';
  a_area text[] := '{}';
  a_job text[] := '{}';
  a_group integer[] := '{}';
  a_address text[] := '{}';
  a_mappable boolean[] := '{}';
  a_directions text[] := '{}';
  a_latitude text[] := '{}';
  a_longitude text[] := '{}';
  a_source text[] := '{}';
  a_source_id text[] := '{}';
  a_hash text[] := '{}';
  a_sent_at timestamptz[] := '{}';
  r_alert bigint[] := '{}';
  r_capcode integer[] := '{}';
  r_agency integer[] := '{}';
  k_source text[] := '{}';
  k_id text[] := '{}';
  k_alert bigint[] := '{}';
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
    id_key := NULL;
    IF m.id IS NOT NULL THEN
      id_key := jsonb_build_array(m.source, m.id)::text;
      existing_id := (id_by_key->>id_key)::bigint;
      IF existing_id IS NULL THEN
        SELECT i.alert_id INTO existing_id FROM ingest_message_ids i
         WHERE i.source = m.source AND i.message_id = m.id;
      END IF;
      IF existing_id IS NOT NULL THEN
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
      pair := existing_id || ':' || cap.id;
      is_new := NOT (pairs ? pair) AND NOT EXISTS (
        SELECT FROM alert_recipients r WHERE r.alert_id = existing_id AND r.capcode_id = cap.id);
      IF is_new THEN
        pairs := pairs || jsonb_build_object(pair, true);
        r_alert := r_alert || existing_id;
        r_capcode := r_capcode || cap.id;
        r_agency := r_agency || cap.agency_id;
        added := added || jsonb_build_object('alert_id', existing_id, 'agency_id', cap.agency_id, 'capcode_id', cap.id);
      END IF;
      results := results || jsonb_build_object('id', existing_id, 'status', CASE WHEN is_new THEN 'merged' ELSE 'duplicate' END);
      -- Remembered too: a late retry (after the duplicate window) must find this copy's id.
      IF id_key IS NOT NULL THEN
        id_by_key := id_by_key || jsonb_build_object(id_key, existing_id);
        k_source := k_source || m.source;
        k_id := k_id || m.id;
        k_alert := k_alert || existing_id;
      END IF;
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

    new_id := nextval(alert_ids);
    a_id := a_id || new_id;
    a_type := a_type || m.type;
    a_raw := a_raw || m.raw_message;
    a_message := a_message || m.message;
    a_capcode := a_capcode || m.capcode;
    a_capcode_id := a_capcode_id || cap.id;
    a_agency_id := a_agency_id || cap.agency_id;
    a_area := a_area || cap.area;
    a_job := a_job || m.job_number;
    a_group := a_group || group_id;
    a_address := a_address || m.primary_address;
    a_mappable := a_mappable || coalesce(m.has_mappable_address, false);
    a_directions := a_directions || m.directions_url;
    a_latitude := a_latitude || m.latitude;
    a_longitude := a_longitude || m.longitude;
    a_source := a_source || m.source;
    a_source_id := a_source_id || m.id;
    a_hash := a_hash || m.hash;
    a_sent_at := a_sent_at || m.sent_at;
    r_alert := r_alert || new_id;
    r_capcode := r_capcode || cap.id;
    r_agency := r_agency || cap.agency_id;
    pairs := pairs || jsonb_build_object(new_id || ':' || cap.id, true);
    created_by_hash := created_by_hash || jsonb_build_object(m.hash, new_id);
    IF id_key IS NOT NULL THEN
      id_by_key := id_by_key || jsonb_build_object(id_key, new_id);
      k_source := k_source || m.source;
      k_id := k_id || m.id;
      k_alert := k_alert || new_id;
    END IF;
    added := added || jsonb_build_object('alert_id', new_id, 'agency_id', cap.agency_id, 'capcode_id', cap.id);
    results := results || jsonb_build_object('id', new_id, 'status', 'created');
  END LOOP;

  IF cardinality(a_id) > 0 THEN
    -- agency_ids written now, so the recipients trigger (migration 0006) has nothing to update for them.
    WITH inserted AS (
      INSERT INTO alerts (id, type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, area,
                          job_number, group_id, primary_address, has_mappable_address, directions_url,
                          latitude, longitude, source, source_message_id, dedupe_hash, sent_at)
      SELECT t.id, t.type, t.raw, t.message, t.capcode, t.capcode_id, t.agency_id, ARRAY[t.agency_id], t.area,
             t.job, t.group_id, t.address, t.mappable, t.directions, t.latitude, t.longitude, t.source,
             t.source_id, t.hash, t.sent_at
        FROM unnest(a_id, a_type, a_raw, a_message, a_capcode, a_capcode_id, a_agency_id, a_area, a_job,
                    a_group, a_address, a_mappable, a_directions, a_latitude, a_longitude, a_source,
                    a_source_id, a_hash, a_sent_at)
          AS t(id, type, raw, message, capcode, capcode_id, agency_id, area, job, group_id, address, mappable,
               directions, latitude, longitude, source, source_id, hash, sent_at)
      RETURNING *)
    SELECT jsonb_agg(to_jsonb(inserted) ORDER BY inserted.id) INTO created FROM inserted;
  END IF;
  IF cardinality(r_alert) > 0 THEN
    INSERT INTO alert_recipients (alert_id, capcode_id, agency_id)
      SELECT * FROM unnest(r_alert, r_capcode, r_agency)
      ON CONFLICT DO NOTHING;
  END IF;
  IF cardinality(k_alert) > 0 THEN
    INSERT INTO ingest_message_ids (source, message_id, alert_id)
      SELECT * FROM unnest(k_source, k_id, k_alert)
      ON CONFLICT DO NOTHING;
  END IF;

  RETURN jsonb_build_object('results', to_jsonb(results), 'created', created, 'added', to_jsonb(added));
END
$$;
