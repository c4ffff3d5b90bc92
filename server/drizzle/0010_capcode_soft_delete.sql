-- A deleted capcode keeps its row (capcodes/service.ts deleteCapcode): alert_recipients cascades on a
-- capcode's delete, which erased the history of the agencies that received its alerts. Its number moves
-- to deleted_capcode and capcode takes a non-digit placeholder, so ingest_messages (which finds capcodes
-- by number) creates a fresh UNMAPPED capcode when the number is paged again, unchanged.
ALTER TABLE "capcodes" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "capcodes" ADD COLUMN "deleted_capcode" varchar(16);