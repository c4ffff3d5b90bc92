import { buildLocalityIndex, type LocalityIndex } from "@turnout/domain";
import { type Locality, loadLocalities } from "./localities.js";

let localities: Locality[] | undefined;
let index: LocalityIndex | undefined;

/**
 * The bundled locality data (suburb, state, postcode, coordinates), read on the first call and kept
 * for the life of the process: reading it parses a 25 MB file, once.
 */
export function bundledLocalities(): readonly Locality[] {
  localities ??= loadLocalities();
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
