-- alerts.sent_at becomes the time an alert is shown and ordered at: the pager's time when the receiver
-- supplied a sane one, else the receipt time (domain pagerTime; created_at keeps the receipt time).
-- Rows stored before this kept whatever time the receiver sent; one in the future (more than the
-- 2-minute clock skew after receipt, PAGER_CLOCK_SKEW_MS) or older than the 7-day spool before it
-- (PAGER_SPOOL_MAX_AGE_MS) takes its receipt time, and a sane one slightly after receipt the receipt.
-- Milliseconds (timestamptz(3)): the feed's keyset cursor carries the time as a JavaScript Date.
-- One table rewrite (as 0006): an UPDATE inside the migrations' transaction would leave every old row
-- version behind in the indexes built next.
ALTER TABLE "alerts" ALTER COLUMN "sent_at" SET DATA TYPE timestamp (3) with time zone USING (
  CASE
    WHEN "sent_at" > "created_at" + interval '2 minutes' OR "sent_at" < "created_at" - interval '7 days'
      THEN "created_at"
    ELSE least("sent_at", "created_at")
  END
);--> statement-breakpoint
-- Ascending, read backwards by the feed's ORDER BY sent_at DESC, id DESC (see schema.ts).
CREATE INDEX "alerts_sent_idx" ON "alerts" USING btree ("sent_at","id");
--> statement-breakpoint
-- The rewrite drops the column's statistics; not on an empty table (see 0006).
DO $$
BEGIN
  IF EXISTS (SELECT FROM alerts) THEN
    ANALYZE alerts;
  END IF;
END
$$;
