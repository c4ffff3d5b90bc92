-- A member's search reads only their agencies' words (issue 16).
--
-- The word index of migration 0016 is over (agency_ids, words): for a member of a small agency a common
-- word meant intersecting the agency's entries with the word's inside the index (at 10 M alerts, 300,000
-- entries of one agency against 4,000,000 of `fire`: ~50 ms before a single row was read). Here every
-- word of an alert is also indexed once per agency of the alert, as '{agency id}:{word}', so a member's
-- search reads the posting lists of '{their agency}:{word}' alone: exactly their alerts holding the word.
-- Kept by the index itself (agency_ids and message are the inputs), so a copy paged to another agency
-- that adds it to agency_ids adds its qualified words too.
CREATE FUNCTION alert_agency_words(agency_ids integer[], message text) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN ARRAY(SELECT a::text || ':' || w
                 FROM unnest(agency_ids) AS a, unnest(string_to_array(lower(message), ' ')) AS w);
--> statement-breakpoint
SET LOCAL maintenance_work_mem = '256MB';
--> statement-breakpoint
CREATE INDEX "alerts_agency_words_idx" ON "alerts" USING gin (alert_agency_words("agency_ids", "message"));
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT FROM alerts) THEN
    ANALYZE alerts;
  END IF;
END
$$;
