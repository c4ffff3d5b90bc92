// Admins' job-number patterns run on every received page, on a linear-time RE2 engine whose cost still
// grows with the pattern's compiled size: `.{0,1000}.{0,1000}X` is 4,000 instructions and took 405 ms
// a page (issue 28). So a pattern is held to a size, its counted repetitions to a cap, and its time on
// worst-case pages to a budget before it is saved; ingest gives each page a time budget for all of them.

/** The limits a grouping pattern is held to. */
export const GROUPING_PATTERN_LIMITS = {
  /** Characters of the pattern's text. */
  maxLength: 200,
  /** Largest count in a counted repetition: `{n}`, `{n,}`, `{n,m}`. */
  maxRepeat: 100,
  /** Instructions of the compiled program (the engine's own measure of a pattern's size). */
  maxProgramSize: 500,
  /** Milliseconds one pattern may take on a worst-case page of `pageLength` characters. */
  maxMsPerPage: 1,
  /** Length of the page a pattern is timed on: the longest message ingest stores. */
  pageLength: 2000,
  /** Milliseconds ingest spends on all patterns for one page before falling back to the built-in rule. */
  pageBudgetMs: 5,
} as const;

/**
 * The first counted repetition (`{n}`, `{n,}`, `{n,m}`) whose count is over the cap, as written, or null.
 * Escaped braces and braces inside a character class are text, not repetitions. Linear in the pattern.
 */
export function oversizedRepetition(
  pattern: string,
  maxRepeat = GROUPING_PATTERN_LIMITS.maxRepeat,
): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      // A ']' right after '[' or '[^' is a literal member of the class.
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
      continue;
    }
    if (ch !== "{") continue;
    const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
    if (!counted) continue;
    const counts = [counted[1], counted[2]].filter((n): n is string => Boolean(n)).map(Number);
    if (counts.some((n) => n > maxRepeat)) return counted[0];
    i += counted[0].length - 1;
  }
  return null;
}

/**
 * Pages a pattern is timed on before it is saved: long runs of the characters that make a matcher keep
 * many partial matches alive (blanks, digits, letters, each literal character of the pattern itself,
 * and their mixtures), each `length` characters.
 */
export function worstCasePages(pattern: string, length = GROUPING_PATTERN_LIMITS.pageLength): string[] {
  const fill = (unit: string) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  const literals = [...new Set(pattern.replace(/\\[a-zA-Z]/g, "").replace(/[\\^$.|?*+()[\]{}]/g, ""))]
    .filter((ch) => ch.trim() !== "")
    .slice(0, 12);
  const units = [
    " ",
    "1",
    "a",
    "A",
    "\n",
    "a ",
    "1 ",
    "A1",
    "F1",
    ...literals,
    literals.join(""),
    `${literals.join("")} 1a`,
  ];
  return [...new Set(units.filter((u) => u !== ""))].map(fill);
}
