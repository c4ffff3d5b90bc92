-- Search at ten million alerts (issue 16): a word index beside the trigram one.
--
-- A search term is a substring (SPEC 5). A term never holds a space, so a message contains it exactly
-- when one of the message's words does, a word being a piece of the lower-cased text between spaces
-- (string_to_array(lower(message), ' '); ILIKE compares lower-cased text the same way). search_words
-- holds every word of every alert; its trigram index finds the few words that contain a term, and the
-- GIN index over (agency_ids, words) then reads exactly the alerts holding one of those words, already
-- in the viewer's agencies: a superset of the matches the ILIKE that follows keeps. Its posting lists
-- are one per word, so a rare word reads ~100 entries where the trigram index intersects several
-- lists of common trigrams, and a pair of words never found together is one intersection of two lists.
-- No unique constraint: an insert never waits for another transaction's insert of the same word (with
-- one, two ingest transactions adding new words in different orders, one statement per message,
-- deadlocked: the ingest benchmark's first run failed so). A word is added when no committed row has it,
-- so two transactions may both add one new word; the look-up reads distinct words.
CREATE TABLE "search_words" (
	"word" text NOT NULL
);
--> statement-breakpoint
SET LOCAL maintenance_work_mem = '256MB';
--> statement-breakpoint
INSERT INTO "search_words" ("word")
  SELECT DISTINCT w FROM alerts, unnest(string_to_array(lower(message), ' ')) AS w;
--> statement-breakpoint
CREATE INDEX "search_words_word_idx" ON "search_words" USING btree ("word");
--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gin ("word" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "alerts_agency_ids_words_idx" ON "alerts" USING gin ("agency_ids", (string_to_array(lower("message"), ' ')));
--> statement-breakpoint
-- Keeps search_words complete: the words of new alerts, and of messages that change (Turnout does not
-- change messages today; the trigger keeps the prefilter exact if it ever does). A transaction either
-- sees a word committed or adds it itself, committed with its alert.
CREATE FUNCTION add_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    INSERT INTO search_words (word)
      SELECT DISTINCT w FROM new_alerts a, unnest(string_to_array(lower(a.message), ' ')) AS w
       WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w);
  ELSE
    INSERT INTO search_words (word)
      SELECT DISTINCT w FROM unnest(string_to_array(lower(NEW.message), ' ')) AS w
       WHERE NOT EXISTS (SELECT FROM search_words s WHERE s.word = w);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER alerts_search_words_insert AFTER INSERT ON alerts
  REFERENCING NEW TABLE AS new_alerts
  FOR EACH STATEMENT EXECUTE FUNCTION add_search_words();
--> statement-breakpoint
-- Row level, so that the column list and WHEN keep it off every other update (agency_ids on each ingest).
CREATE TRIGGER alerts_search_words_update AFTER UPDATE OF message ON alerts
  FOR EACH ROW WHEN (OLD.message IS DISTINCT FROM NEW.message) EXECUTE FUNCTION add_search_words();
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT FROM alerts) THEN
    ANALYZE alerts, search_words;
  END IF;
END
$$;
