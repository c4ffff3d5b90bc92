import { buildLocalityIndex, type LocalityIndex } from "@turnout/domain";
import { type Locality, loadLocalities, loadLocalitiesCached } from "./localities.js";

let localities: Locality[] | undefined;
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
 * The bundled locality data (suburb, state, postcode, coordinates), read on the first call and kept
 * for the life of the process: from the source (a 25 MB file) or the cache `keepLocalitiesIn` names.
 */
export function bundledLocalities(): readonly Locality[] {
  localities ??= cache ? loadLocalitiesCached(cache.file, { onCacheError: cache.onError }) : loadLocalities();
  return localities;
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
