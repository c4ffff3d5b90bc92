import { buildLocalityIndex, type LocalityIndex } from "@turnout/domain";
import { type Locality, loadLocalities, loadLocalitiesCached } from "./localities.js";

/** Held weakly once a cache can give them again in milliseconds (the server), strongly otherwise. */
let localities: { deref: () => readonly Locality[] | undefined } | undefined;
let index: LocalityIndex | undefined;
let cache: { file: string; onError: (err: unknown) => void } | undefined;

/**
 * Keeps the localities in `file` for the starts that follow (the server: in DATA_DIR), instead of
 * parsing the 25 MB source at every start. Before the first read.
 */
export function keepLocalitiesIn(file: string, onError: (err: unknown) => void): void {
  cache = { file, onError };
}

/**
 * The bundled locality data (suburb, state, postcode, coordinates): from the source (a 25 MB file),
 * kept for the life of the process, or from the cache `keepLocalitiesIn` names, kept while anything
 * holds them. The server reads them whole only to seed, and to build the index and the map's suburb
 * centres once: 17,613 localities left in memory after that were ~2.5 MB of an idle server (issue 32).
 */
export function bundledLocalities(): readonly Locality[] {
  const kept = localities?.deref();
  if (kept) return kept;
  const read = cache ? loadLocalitiesCached(cache.file, { onCacheError: cache.onError }) : loadLocalities();
  localities = cache ? new WeakRef(read) : { deref: () => read };
  return read;
}

/**
 * The localities of every state (VIC preferred for a name several states share) that ingest reads
 * suburbs against, built from the bundled data on the first call and kept for the life of the process.
 * Throws when the data cannot be read.
 */
export function addressLocalities(): LocalityIndex {
  index ??= buildLocalityIndex(bundledLocalities().map((l) => ({ name: l.suburb, state: l.state })));
  return index;
}
