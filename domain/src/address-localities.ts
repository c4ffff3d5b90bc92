// Locality names prepared once for extractAddress (address.ts), and the lookup of one in a message's words.

/** Locality names prepared once for extractAddress (see buildLocalityIndex). */
export type LocalityIndex = {
  /**
   * Upper-case names keyed by their first word, each written "NAME\tSTATE", the names of most words
   * first; a first word with one name holds that string alone. Strings rather than objects of word
   * lists: the index of Australia's ~18,000 localities stays in every server's memory, and took 4.6 MB
   * as objects.
   */
  readonly byFirstWord: ReadonlyMap<string, string | readonly string[]>;
};

const SPACE = 0x20;
const TAB = 0x09;

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
  const lists = new Map<string, string[]>();
  for (const [key, state] of states) {
    const first = key.split(" ", 1)[0]!;
    const list = lists.get(first) ?? [];
    list.push(`${key}\t${state}`);
    lists.set(first, list);
  }
  const wordCount = (entry: string) => entry.split(" ").length;
  const byFirstWord = new Map<string, string | string[]>();
  for (const [first, list] of lists) {
    byFirstWord.set(first, list.length === 1 ? list[0]! : list.sort((x, y) => wordCount(y) - wordCount(x)));
  }
  return { byFirstWord };
}

/** A suburb read from a message, with the state it links to. */
export type Place = { suburb: string; state: string };

/** The longest locality that starts at tokens[from] (words, none with a blank); null when none does. */
export function localityAt(localities: LocalityIndex, tokens: string[], from: number): Place | null {
  const names = localities.byFirstWord.get(tokens[from] ?? "");
  if (names === undefined) return null;
  if (typeof names === "string") return placeIn(names, tokens, from);
  for (const entry of names) {
    const place = placeIn(entry, tokens, from);
    if (place) return place;
  }
  return null;
}

/** The place of `entry` ("NAME\tSTATE") when its words are tokens[from...]; null when they are not. */
function placeIn(entry: string, tokens: string[], from: number): Place | null {
  const end = nameEndAt(entry, tokens, from);
  return end < 0 ? null : { suburb: entry.slice(0, end), state: entry.slice(end + 1) };
}

/** Where the name of `entry` ends when its words are tokens[from...]; -1 when they are not. */
function nameEndAt(entry: string, tokens: string[], from: number): number {
  let at = 0;
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!entry.startsWith(token, at)) return -1;
    at += token.length;
    const next = entry.charCodeAt(at);
    if (next === TAB) return at;
    if (next !== SPACE) return -1;
    at++;
  }
  return -1;
}
