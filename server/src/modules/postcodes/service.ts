import { asc, eq, ilike, or, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../../db/client.js";
import { postcodes } from "../../db/schema.js";
import { badRequest } from "../../errors.js";
import { loadLocalities } from "../../shared/localities/localities.js";

/** A place as the client sees it (SPEC 7). */
export type Location = { postcode: string; suburb: string; state_abbreviation: string };

/** Suburb text shorter than this is not searched (SPEC 5). */
export const SEARCH_MIN_LENGTH = 3;
/** At most this many places come back from a suburb search. */
export const SEARCH_LIMIT = 20;

type SeedLogger = Pick<Logger, "info">;

const INSERT_BATCH = 2_000;
const silentLogger: SeedLogger = { info: () => {} };
const seeding = new WeakMap<Database, Promise<void>>();

/**
 * Fills the `postcodes` table from the bundled data when it is empty; does nothing otherwise.
 * Concurrent callers on one `db` share one run; separate processes serialise on an advisory lock, and
 * the loser finds the table filled. Everything goes in one transaction, so a failed run leaves the
 * table empty and the next call tries again. Rejects when the data cannot be read or inserted.
 */
export function ensurePostcodesSeeded(db: Database, logger: SeedLogger = silentLogger): Promise<void> {
  let run = seeding.get(db);
  if (!run) {
    run = seedPostcodes(db, logger);
    seeding.set(db, run);
    run.catch(() => seeding.delete(db));
  }
  return run;
}

async function seedPostcodes(db: Database, logger: SeedLogger): Promise<void> {
  if (await hasPostcodes(db)) return;
  const started = performance.now();
  const localities = loadLocalities();
  const seededHere = await db.transaction(async (tx) => {
    // Another instance may be seeding right now: wait for it, then look again.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('turnout.postcodes.seed'))`);
    if (await hasPostcodes(tx)) return false;
    for (let i = 0; i < localities.length; i += INSERT_BATCH) {
      await tx
        .insert(postcodes)
        .values(localities.slice(i, i + INSERT_BATCH))
        .onConflictDoNothing({ target: [postcodes.postcode, postcodes.suburb, postcodes.state] });
    }
    return true;
  });
  const ms = Math.round(performance.now() - started);
  if (seededHere) logger.info({ localities: localities.length, ms }, "postcodes seeded");
  else logger.info({ ms }, "postcodes were seeded by another instance meanwhile");
}

async function hasPostcodes(db: Pick<Database, "select">): Promise<boolean> {
  const rows = await db.select({ id: postcodes.id }).from(postcodes).limit(1);
  return rows.length > 0;
}

/** The places with this postcode, by suburb. Throws a 400 AppError unless it is exactly 4 digits. */
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
