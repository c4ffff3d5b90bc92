// Radio decoders pass on whatever bits they heard: NUL, bell, escape, and (after a lossy conversion)
// halves of UTF-16 surrogate pairs. PostgreSQL text and jsonb cannot hold NUL or a lone surrogate, and
// no reader can see or search for the other control characters, so a received message is made storable
// rather than refused: a page that reached the receiver must reach the screens.

/** The replacement for a character that could not be decoded (U+FFFD). */
export const REPLACEMENT_CHARACTER = "\uFFFD";

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// C0 controls and DEL except tab, line feed and carriage return, which are layout a pager can show.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const INVISIBLE_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/**
 * A received pager field (text, source, id) as it can be stored and shown: NUL and the other C0
 * control characters except tab, line feed and carriage return are removed, as is DEL; an unpaired
 * UTF-16 surrogate becomes U+FFFD. Everything else, other languages and emoji included, is kept.
 */
export function storablePagerText(text: string): string {
  return text.replace(INVISIBLE_CONTROLS, "").replace(LONE_SURROGATE, REPLACEMENT_CHARACTER);
}
