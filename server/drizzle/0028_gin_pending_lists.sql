-- Issue 32: searches slowed down after heavy ingest until a VACUUM. Every GIN index of alerts and
-- search_words keeps new entries in an unsorted pending list (fastupdate) until it holds
-- gin_pending_list_limit (4 MB by default: up to 512 pages), and every search that reads the index scans
-- the whole list: a word's lookup in search_words_trgm_idx went from 0.1 ms to 11.7 ms at 1 M alerts.
-- A limit of 256 kB (32 pages) keeps each list short; the insert that fills it merges it into the
-- index, so no VACUUM is needed. fastupdate = off (no list at all) halved the ingest rate through the
-- API (541 -> 282 messages/s, bench/results/pagermon.md); 256 kB cost 6 % in one run and up to 42 % in
-- another under a heavier load on a shared machine: its ingest cost is not settled yet.
ALTER INDEX "alerts_agency_ids_message_idx" SET (gin_pending_list_limit = 256);--> statement-breakpoint
ALTER INDEX "alerts_agency_ids_words_idx" SET (gin_pending_list_limit = 256);--> statement-breakpoint
ALTER INDEX "alerts_agency_words_idx" SET (gin_pending_list_limit = 256);--> statement-breakpoint
ALTER INDEX "search_words_trgm_idx" SET (gin_pending_list_limit = 256);
