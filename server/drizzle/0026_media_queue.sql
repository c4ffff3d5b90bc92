-- Issue 28: video posters join conversions in the durable media queue, and the queue can tell jobs
-- that run (counted against MEDIA_CONCURRENCY across instances) from jobs waiting to be retried.
ALTER TABLE "feedback_media" ADD COLUMN "poster_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "feedback_media" ADD COLUMN "job_running" boolean DEFAULT false NOT NULL;--> statement-breakpoint
DROP INDEX IF EXISTS "feedback_media_pending_idx";--> statement-breakpoint
CREATE INDEX "feedback_media_jobs_idx" ON "feedback_media" USING btree ("lease_until") WHERE "conversion_status" = 'pending' OR "poster_pending";
