DROP INDEX "alert_groups_job_number_idx";--> statement-breakpoint
CREATE INDEX "alert_groups_job_number_idx" ON "alert_groups" USING btree ("job_number","last_alert_at");