// Locality names prepared once for extractAddress (address.ts), and the lookup of one in a message's words.

/** Locality names prepared once for extractAddress (see buildLocalityIndex). */
export type LocalityIndex = {
  /** Upper-case names as word lists, keyed by their first word, longest first; each with its state. */
  readonly byFirstWord: ReadonlyMap<string, ReadonlyArray<{ words: readonly string[]; state: string }>>;
};

const normaliseName = (name: string): string =>
  name
    .replace(/[\u2018\u2019`]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toUpperCase();

/**
 * Prepares locality names of any case ("Kangaroo Flat", "VIC") for extractAddress, once: a name found
 * in several states links to VIC when that is one of them, else to the first state given; a name with
 * MOUNT is also found written MT, as pager text abbreviates it.
 */
export function buildLocalityIndex(places: Iterable<{ name: string; state: string }>): LocalityIndex {
  const states = new Map<string, string>();
  const add = (key: string, state: string) => {
    const known = states.get(key);
    if (known === undefined || (state === "VIC" && known !== "VIC")) states.set(key, state);
  };
  for (const { name, state } of places) {
    const key = normaliseName(name);
    if (key === "") continue;
    const upperState = state.trim().toUpperCase();
    add(key, upperState);
    if (/\bMOUNT\b/.test(key)) add(key.replace(/\bMOUNT\b/g, "MT"), upperState);
  }
  const byFirstWord = new Map<string, Array<{ words: string[]; state: string }>>();
  for (const [key, state] of states) {
    const words = key.split(" ");
    const list = byFirstWord.get(words[0]!) ?? [];
    list.push({ words, state });
    byFirstWord.set(words[0]!, list);
  }
  for (const list of byFirstWord.values()) list.sort((x, y) => y.words.length - x.words.length);
  return { byFirstWord };
}

/** A suburb read from a message, with the state it links to. */
export type Place = { suburb: string; state: string };

/** The longest locality that starts at tokens[from]; null when none does. */
export function localityAt(localities: LocalityIndex, tokens: string[], from: number): Place | null {
  for (const candidate of localities.byFirstWord.get(tokens[from] ?? "") ?? []) {
    if (candidate.words.every((word, i) => tokens[from + i] === word)) {
      return { suburb: candidate.words.join(" "), state: candidate.state };
    }
  }
  return null;
}
