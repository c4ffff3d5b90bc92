ALTER TABLE "rule_match_queue" DROP CONSTRAINT "rule_match_queue_alert_id_alerts_id_fk";
