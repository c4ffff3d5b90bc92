/**
 * Text PostgreSQL cannot store in a `text` or `jsonb` value: the NUL character (U+0000) and UTF-16
 * surrogates that are not part of a pair (JSON's "\ud800" alone, or a pair cut in half).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point of this pattern.
const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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
