-- Custom SQL migration file, put your code below! --
-- Every new recipient of an alert (a new alert, or a copy paged to another capcode) queues the alert
-- for keyword-rule matching in the same transaction, so a committed alert is never missed.
-- Duplicates that ingest suppresses add no recipient row and so queue nothing.
CREATE OR REPLACE FUNCTION queue_rule_matching() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rule_match_queue (alert_id)
  SELECT DISTINCT alert_id FROM new_recipients
  ON CONFLICT (alert_id) DO NOTHING;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER alert_recipients_queue_rule_matching
  AFTER INSERT ON alert_recipients
  REFERENCING NEW TABLE AS new_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION queue_rule_matching();
