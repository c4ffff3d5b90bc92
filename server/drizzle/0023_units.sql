-- Brigades and units, and pages that are not jobs (issue 26).
--
-- Units: an agency's capcodes grouped into the brigades, SES units and groups members belong to.
-- Agencies stay the access boundary; a unit narrows a member's default view (feed, live events, push,
-- keyword rules). A unit's place (postcode, suburb, state and its coordinates from the bundled
-- localities) orders the units offered at registration, nearest first.
CREATE TABLE units (
  id serial PRIMARY KEY,
  agency_id integer NOT NULL REFERENCES agencies(id) ON DELETE CASCADE,
  name text NOT NULL,
  code varchar(32),
  postcode varchar(4),
  suburb text,
  state varchar(3),
  latitude double precision,
  longitude double precision,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE UNIQUE INDEX units_agency_name_idx ON units (agency_id, lower(name));
--> statement-breakpoint
-- A capcode may serve several units (a group page reaches every brigade of the group).
CREATE TABLE unit_capcodes (
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  capcode_id integer NOT NULL REFERENCES capcodes(id) ON DELETE CASCADE,
  PRIMARY KEY (unit_id, capcode_id)
);
--> statement-breakpoint
CREATE INDEX unit_capcodes_capcode_idx ON unit_capcodes (capcode_id);
--> statement-breakpoint
CREATE TABLE user_units (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  unit_id integer NOT NULL REFERENCES units(id) ON DELETE CASCADE,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, unit_id)
);
--> statement-breakpoint
CREATE INDEX user_units_unit_idx ON user_units (unit_id);
--> statement-breakpoint
-- A capcode moved to another agency (an admin's assignment, a CSV import) leaves the units of the old
-- one: a unit only ever holds its own agency's capcodes, whichever path moved it.
CREATE FUNCTION unit_capcodes_follow_agency() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM unit_capcodes uc USING units u
   WHERE uc.capcode_id = NEW.id AND u.id = uc.unit_id AND u.agency_id <> NEW.agency_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER capcodes_agency_units AFTER UPDATE OF agency_id ON capcodes
  FOR EACH ROW WHEN (OLD.agency_id IS DISTINCT FROM NEW.agency_id)
  EXECUTE FUNCTION unit_capcodes_follow_agency();
--> statement-breakpoint
-- A member who leaves an agency leaves its units too: a unit never reaches past the agencies a member
-- is assigned to.
CREATE FUNCTION user_units_follow_agencies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM user_units uu USING units u
   WHERE uu.user_id = OLD.user_id AND u.id = uu.unit_id AND u.agency_id = OLD.agency_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER user_agencies_units AFTER DELETE ON user_agencies
  FOR EACH ROW EXECUTE FUNCTION user_units_follow_agencies();
--> statement-breakpoint
-- Keyword rules cover the owner's units by default (where they chose any): false widens a rule to
-- their whole agencies again.
ALTER TABLE user_alert_rules ADD COLUMN units_only boolean NOT NULL DEFAULT true;
--> statement-breakpoint
-- Machine and test pages (domain isMachinePage): administrative, never pushed or rung, hidden from
-- members by default. Earlier TIMEUPDATE pages are marked here (found through the trigram index);
-- earlier test pages stay as they were stored.
ALTER TABLE alerts ADD COLUMN is_machine boolean NOT NULL DEFAULT false;
--> statement-breakpoint
UPDATE alerts SET is_machine = true, type = 'administrative' WHERE message ILIKE '%TIMEUPDATE%';
--> statement-breakpoint
-- ingest_messages (migration 0017) stores each message's is_machine as ingest decided it.
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
  a_machine boolean[] := '{}';
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
             latitude text, longitude text, sent_at timestamptz, is_machine boolean)
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
    a_machine := a_machine || coalesce(m.is_machine, false);
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
                          latitude, longitude, source, source_message_id, dedupe_hash, sent_at, is_machine)
      SELECT t.id, t.type, t.raw, t.message, t.capcode, t.capcode_id, t.agency_id, ARRAY[t.agency_id], t.area,
             t.job, t.group_id, t.address, t.mappable, t.directions, t.latitude, t.longitude, t.source,
             t.source_id, t.hash, t.sent_at, t.machine
        FROM unnest(a_id, a_type, a_raw, a_message, a_capcode, a_capcode_id, a_agency_id, a_area, a_job,
                    a_group, a_address, a_mappable, a_directions, a_latitude, a_longitude, a_source,
                    a_source_id, a_hash, a_sent_at, a_machine)
          AS t(id, type, raw, message, capcode, capcode_id, agency_id, area, job, group_id, address, mappable,
               directions, latitude, longitude, source, source_id, hash, sent_at, machine)
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
