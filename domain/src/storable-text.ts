// Text PostgreSQL cannot store in a `text` or `jsonb` value: the NUL character (U+0000) and UTF-16
// surrogates that are not part of a pair (JSON's "\ud800" alone, or a pair cut in half). Requests
// carrying it are refused (findUnstorableText); received pager text is cleaned (storablePagerText).

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const UNSTORABLE_TEXT = new RegExp(`\\u0000|${LONE_SURROGATE.source}`);

/** True when `text` holds a character the database cannot store (see UNSTORABLE_TEXT). */
export function hasUnstorableText(text: string): boolean {
  return UNSTORABLE_TEXT.test(text);
}

/**
 * Where in a parsed request value (a JSON body, a query or path object) the first string the database
 * cannot store sits, as a dotted path ('body.messages.3.text'; a key is checked like a value), or null
 * when every string is storable. Walks without recursion, so deeply nested input cannot exhaust the stack.
 */
export function findUnstorableText(value: unknown, root: string): string | null {
  const pending: [unknown, string][] = [[value, root]];
  while (pending.length > 0) {
    const [item, path] = pending.pop() as [unknown, string];
    if (typeof item === "string") {
      if (hasUnstorableText(item)) return path;
    } else if (Array.isArray(item)) {
      for (const [i, v] of item.entries()) pending.push([v, `${path}.${i}`]);
    } else if (item !== null && typeof item === "object") {
      for (const [k, v] of Object.entries(item)) {
        if (hasUnstorableText(k)) return path;
        pending.push([v, `${path}.${k}`]);
      }
    }
  }
  return null;
}

// Radio decoders pass on whatever bits they heard: NUL, bell, escape, and (after a lossy conversion)
// halves of UTF-16 surrogate pairs. PostgreSQL text and jsonb cannot hold NUL or a lone surrogate, and
// no reader can see or search for the other control characters, so a received message is made storable
// rather than refused: a page that reached the receiver must reach the screens.

/** The replacement for a character that could not be decoded (U+FFFD). */
export const REPLACEMENT_CHARACTER = "\uFFFD";

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
