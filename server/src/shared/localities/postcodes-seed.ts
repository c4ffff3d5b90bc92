// The postcodes table, filled from the bundled locality data (localities.ts) on first use: the
// postcode search, units' places and the server's start all wait on it.
import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../../db/client.js";
import { postcodes } from "../../db/schema.js";
import { bundledLocalities } from "./address-localities.js";

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
  // The copy the server reads at start for ingest and keeps: parsing the 25 MB file a second time
  // here lifted a first start's memory from ~200 to ~340 MB (bench/results/idle-memory.md).
  const localities = bundledLocalities();
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
