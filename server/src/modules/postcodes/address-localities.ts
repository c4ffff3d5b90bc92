import { buildLocalityIndex, type LocalityIndex } from "@turnout/domain";
import { loadLocalities } from "./localities.js";

let index: LocalityIndex | undefined;

/**
 * The localities of every state (VIC preferred for a name several states share) that ingest reads
 * suburbs against, built from the bundled data on the first call and kept for the life of the process.
 * Throws when the data cannot be read.
 */
export function addressLocalities(): LocalityIndex {
  index ??= buildLocalityIndex(loadLocalities().map((l) => ({ name: l.suburb, state: l.state })));
  return index;
}
