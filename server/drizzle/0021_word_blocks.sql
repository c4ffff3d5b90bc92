-- Two common words never found together, at ten million alerts (issue 16).
--
-- Proving that no alert holds both `struc1` and `alarc1` meant stepping through both words' posting
-- lists in the word index, 2,000,000 interleaved entries each at 10 M alerts: ~140 ms. word_blocks keeps,
-- for each common word (word_block_words), one bit per alert in blocks of 4,096 alert ids: the AND of
-- the two words' bits, block by block, is the same answer from a few MB. Only sealed blocks are kept
-- (every id in them older than any transaction that could still add an alert), so the bits never change
-- once written; a search reads every alert above the sealed blocks itself. Filled by the sealer in
-- modules/alerts/word-blocks.ts, in the background, never on the ingest path.
--
-- The bits are also in the unique index (INCLUDE): a block's rows are written together, so one word's
-- rows lie one to a heap page, while in the index they are in (word, block) order, 14 to a page. The
-- sealer vacuums the table after writing, so that index-only scans need not visit the heap.
CREATE TABLE "word_block_words" (
	"word" text PRIMARY KEY NOT NULL,
	"filled_below" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "word_blocks" (
	"word" text NOT NULL,
	"block" integer NOT NULL,
	"bits" bit(4096) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "word_blocks_word_block_idx" ON "word_blocks" USING btree ("word","block") INCLUDE ("bits");