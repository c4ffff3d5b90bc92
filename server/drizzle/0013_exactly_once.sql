-- Exactly once, also late (issue 14).
--
-- 1. Every sender id ingest has seen (source + id), with the alert it became: created, merged into
--    (the same text for another capcode inside the duplicate window) or a duplicate of. Before this only
--    the id of the message that created an alert was kept (alerts.source_message_id), so a batch
--    retried after the duplicate window stored its merged copies again as new alerts, and their
--    keyword-rule SMS went out again. Rows live as long as their alert (ON DELETE CASCADE); Turnout
--    never deletes alerts itself.
-- 2. sms_queue.lease_until: a claim (status `sending`) is a lease its worker renews while it sends;
--    once it has passed, any instance's worker claims the row again (sms/queue.ts). It replaces the
--    minutes-long "stuck" threshold after which a dead worker's messages used to be released.
CREATE TABLE "ingest_message_ids" (
	"source" varchar(64) NOT NULL,
	"message_id" varchar(128) NOT NULL,
	"alert_id" bigint NOT NULL,
	CONSTRAINT "ingest_message_ids_source_message_id_pk" PRIMARY KEY("source","message_id")
);
--> statement-breakpoint
ALTER TABLE "sms_queue" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ingest_message_ids" ADD CONSTRAINT "ingest_message_ids_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ingest_message_ids_alert_idx" ON "ingest_message_ids" USING btree ("alert_id");--> statement-breakpoint
CREATE INDEX "sms_queue_lease_idx" ON "sms_queue" USING btree ("lease_until") WHERE "sms_queue"."status" = 'sending';
--> statement-breakpoint
-- The ids already stored: each created alert's own id (the merged copies' ids were never kept).
INSERT INTO ingest_message_ids (source, message_id, alert_id)
  SELECT source, source_message_id, id FROM alerts
   WHERE source_message_id IS NOT NULL AND source IS NOT NULL
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Rows claimed before this have no lease: they expire at once (their claim time is all we know).
UPDATE sms_queue SET lease_until = locked_at WHERE status = 'sending';
--> statement-breakpoint
-- ingest_messages (migration 0007) with the ids of step 1: looked up there instead of in alerts, and
-- written for every message that carries one, whatever became of it.
CREATE OR REPLACE FUNCTION ingest_messages(batch jsonb) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
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
      SELECT i.alert_id INTO existing_id FROM ingest_message_ids i
       WHERE i.source = m.source AND i.message_id = m.id;
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
      -- Remembered too: a late retry (after the duplicate window) must find this copy's id.
      IF m.id IS NOT NULL THEN
        INSERT INTO ingest_message_ids (source, message_id, alert_id) VALUES (m.source, m.id, existing_id)
          ON CONFLICT DO NOTHING;
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

    -- agency_ids written now, so the recipients trigger (migration 0006) finds nothing to update.
    INSERT INTO alerts (type, raw_message, message, capcode, capcode_id, agency_id, agency_ids, area, job_number,
                        group_id, primary_address, has_mappable_address, directions_url, latitude, longitude,
                        source, source_message_id, dedupe_hash, sent_at)
      VALUES (m.type, m.raw_message, m.message, m.capcode, cap.id, cap.agency_id, ARRAY[cap.agency_id], cap.area,
              m.job_number, group_id, m.primary_address, coalesce(m.has_mappable_address, false), m.directions_url,
              m.latitude, m.longitude, m.source, m.id, m.hash, m.sent_at)
      RETURNING * INTO alert_row;
    INSERT INTO alert_recipients (alert_id, capcode_id, agency_id) VALUES (alert_row.id, cap.id, cap.agency_id);
    IF m.id IS NOT NULL THEN
      INSERT INTO ingest_message_ids (source, message_id, alert_id) VALUES (m.source, m.id, alert_row.id)
        ON CONFLICT DO NOTHING;
    END IF;
    created_by_hash := created_by_hash || jsonb_build_object(m.hash, alert_row.id);
    created := created || to_jsonb(alert_row);
    added := added || jsonb_build_object('alert_id', alert_row.id, 'agency_id', cap.agency_id, 'capcode_id', cap.id);
    results := results || jsonb_build_object('id', alert_row.id, 'status', 'created');
  END LOOP;

  RETURN jsonb_build_object('results', to_jsonb(results), 'created', to_jsonb(created), 'added', to_jsonb(added));
END
$$;
