ALTER TABLE "feedback_media" ADD COLUMN "conversion_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "feedback_media" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "feedback_media_file_idx" ON "feedback_media" USING btree ("file_path");--> statement-breakpoint
CREATE INDEX "feedback_media_thumbnail_idx" ON "feedback_media" USING btree ("thumbnail_path");--> statement-breakpoint
CREATE INDEX "feedback_media_pending_idx" ON "feedback_media" USING btree ("lease_until") WHERE "feedback_media"."conversion_status" = 'pending';