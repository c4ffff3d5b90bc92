import { asc, eq, ilike, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { postcodes } from "../../db/schema.js";
import { badRequest } from "../../errors.js";
import { ensurePostcodesSeeded } from "../../shared/localities/postcodes-seed.js";

/** A place as the client sees it (SPEC 7). */
export type Location = { postcode: string; suburb: string; state_abbreviation: string };

/** Suburb text shorter than this is not searched (SPEC 5). */
export const SEARCH_MIN_LENGTH = 3;
/** At most this many places come back from a suburb search. */
export const SEARCH_LIMIT = 20;

export async function lookupPostcode(db: Database, postcode: string): Promise<Location[]> {
  if (!/^\d{4}$/.test(postcode)) throw badRequest("A postcode is exactly 4 digits.");
  await ensurePostcodesSeeded(db);
  return db
    .select(locationColumns)
    .from(postcodes)
    .where(eq(postcodes.postcode, postcode))
    .orderBy(asc(postcodes.suburb), asc(postcodes.state));
}

/**
 * Up to 20 places whose suburb contains the text, ignoring case: exact names first, then names that
 * start with it, then names with a word starting with it ("North Richmond"), then any other match;
 * alphabetical within each group. Throws a 400 AppError for text under 3 characters.
 */
export async function searchLocations(db: Database, text: string): Promise<Location[]> {
  const query = text.trim().replace(/\s+/g, " ");
  if (query.length < SEARCH_MIN_LENGTH) {
    throw badRequest(`Type at least ${SEARCH_MIN_LENGTH} letters of the suburb to search.`);
  }
  await ensurePostcodesSeeded(db);
  const like = escapeLike(query);
  const wordStart = or(
    ilike(postcodes.suburb, `% ${like}%`),
    ilike(postcodes.suburb, `%-${like}%`),
    ilike(postcodes.suburb, `%(${like}%`),
  );
  const rank = sql`case
    when lower(${postcodes.suburb}) = lower(${query}) then 0
    when ${ilike(postcodes.suburb, `${like}%`)} then 1
    when ${wordStart} then 2
    else 3 end`;
  return db
    .select(locationColumns)
    .from(postcodes)
    .where(ilike(postcodes.suburb, `%${like}%`))
    .orderBy(rank, asc(postcodes.suburb), asc(postcodes.state), asc(postcodes.postcode))
    .limit(SEARCH_LIMIT);
}

const locationColumns = {
  postcode: postcodes.postcode,
  suburb: postcodes.suburb,
  state_abbreviation: postcodes.state,
};

/** Makes `%`, `_` and `\` in user text match themselves in a LIKE pattern. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
