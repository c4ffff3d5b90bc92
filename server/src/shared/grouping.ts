// The message-grouping rules as ingest applies them: the settings in force, the admins' patterns
// compiled on the linear-time engine, and the job number that groups a page. The grouping module owns
// editing them (modules/grouping); ingest and the grouping preview read them here.
import {
  type AlertType,
  extractJobNumber,
  GROUPING_PATTERN_LIMITS,
  isGroupable,
  oversizedRepetition,
} from "@turnout/domain";
import { asc } from "drizzle-orm";
import { RE2JS } from "re2js";
import type { Database } from "../db/client.js";
import { groupingPatterns, groupingSettings } from "../db/schema.js";
import { GROUPING_DEFAULTS } from "../db/seed.js";
import { badRequest } from "../errors.js";

const LIMITS = GROUPING_PATTERN_LIMITS;

export type GroupingSettings = {
  grouping_enabled: boolean;
  group_window_hours: number;
  duplicate_window_seconds: number;
};

/**
 * A compiled admin pattern on re2js, a pure-JavaScript port of RE2: time linear in the text (no
 * backtracking) and nothing to compile at install (bench/README.md, "Grouping patterns", has why this
 * engine and not a WebAssembly one).
 */
export type CompiledRegex = {
  /** The first capture group of the first match (or the whole match without one), or null. */
  find(text: string): string | null;
};
export type CompiledPattern = { id: number; name: string; regex: CompiledRegex };

/** The grouping settings in force, each falling back to its default when missing or malformed. */
export async function getGroupingSettings(db: Database): Promise<GroupingSettings> {
  const rows = await db.select().from(groupingSettings);
  const raw = new Map(rows.map((r) => [r.key, r.value]));
  const num = (key: keyof typeof GROUPING_DEFAULTS) => {
    const n = Number(raw.get(key) ?? GROUPING_DEFAULTS[key].value);
    return Number.isFinite(n) && n >= 0 ? n : Number(GROUPING_DEFAULTS[key].value);
  };
  return {
    grouping_enabled: (raw.get("grouping_enabled") ?? "true") !== "false",
    group_window_hours: num("group_window_hours"),
    duplicate_window_seconds: num("duplicate_window_seconds"),
  };
}

/**
 * Compiles an admin's pattern (case-insensitive) on the linear-time engine, held to the size limits
 * (GROUPING_PATTERN_LIMITS: length, counted repetitions, compiled program size), because patterns run
 * on every ingested message. Throws 400 naming the problem: empty or too long, a repetition or program
 * over its cap, a syntax error, or what RE2 leaves out to stay linear (backreferences, lookaround).
 */
export function compilePattern(pattern: string): CompiledRegex {
  if (pattern.length === 0 || pattern.length > LIMITS.maxLength) {
    throw badRequest(`A pattern must be 1 to ${LIMITS.maxLength} characters.`);
  }
  const repetition = oversizedRepetition(pattern);
  if (repetition) {
    throw badRequest(
      `A counted repetition may be at most ${LIMITS.maxRepeat} (the pattern has ${repetition}): patterns run on every message, and their cost grows with these counts.`,
    );
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    throw badRequest(syntaxProblem((err as Error).message));
  }
  const size = re.programSize();
  if (size > LIMITS.maxProgramSize) {
    throw badRequest(
      `The pattern is too large: it compiles to ${size} steps, at most ${LIMITS.maxProgramSize}. Use smaller repetition counts or fewer alternatives.`,
    );
  }
  const groups = re.groupCount();
  return {
    find(text) {
      // The DFA (test) answers whether there is a match without tracking groups: several times faster,
      // and most pages match no admin pattern. Only a match pays for the capture run.
      if (!re.test(text)) return null;
      const m = re.matcher(text);
      if (!m.find()) return null;
      return (groups > 0 ? m.group(1) : null) ?? m.group(0);
    },
  };
}

/** re2js's parse error as the admin's 400, naming what RE2 leaves out when that is the cause. */
function syntaxProblem(reason: string): string {
  const detail = reason.replace(/^error parsing regexp: /, "").replace("`(?i)", "`");
  if (/unsupported Perl syntax: `\(\?[=!]|invalid named capture: `\(\?<[=!]/.test(reason)) {
    return `Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: patterns run on RE2, which matches in linear time. (${detail})`;
  }
  if (/invalid escape sequence: `\\(\d|k)/.test(reason)) {
    return `Backreferences (\\1, \\k<name>) are not supported: patterns run on RE2, which matches in linear time. (${detail})`;
  }
  return `The pattern does not compile: ${detail}`;
}

/** Active admin patterns, highest priority (lowest number) first; ones that no longer compile are skipped. */
export async function activePatterns(db: Database): Promise<CompiledPattern[]> {
  const rows = await db
    .select()
    .from(groupingPatterns)
    .orderBy(asc(groupingPatterns.priority), asc(groupingPatterns.id));
  const out: CompiledPattern[] = [];
  for (const row of rows) {
    if (!row.isActive) continue;
    try {
      out.push({ id: row.id, name: row.name, regex: compilePattern(row.pattern) });
    } catch {
      // an unusable stored pattern (saved under older limits, or edited in the table) must not stop ingest
    }
  }
  return out;
}

/** Pages whose patterns ran out of their time budget since the start (shown with the grouping config). */
let pagesOverBudget = 0;

/** How many pages since the start fell back to the built-in rule because the patterns took too long. */
export function patternBudgetOverruns(): number {
  return pagesOverBudget;
}

/**
 * The job number that groups a message: admin patterns first (the first capture group, or the whole
 * match), then the SPEC 9 patterns. Null for TIMEUPDATE and administrative messages, which never group.
 * The patterns together get `budgetMs` per page (GROUPING_PATTERN_LIMITS.pageBudgetMs): once spent, the
 * rest are skipped for that page and the built-in rule decides, so no set of patterns can hold ingest.
 */
export function jobNumberFor(
  text: string,
  type: AlertType,
  patterns: readonly CompiledPattern[],
  budgetMs: number = LIMITS.pageBudgetMs,
): { jobNumber: string | null; matchedBy: string | null } {
  if (!isGroupable(text, type)) return { jobNumber: null, matchedBy: null };
  const started = performance.now();
  for (const p of patterns) {
    const value = p.regex.find(text)?.trim().toUpperCase();
    if (value) return { jobNumber: value.slice(0, 32), matchedBy: p.name };
    if (performance.now() - started > budgetMs) {
      pagesOverBudget++;
      break;
    }
  }
  const builtIn = extractJobNumber(text);
  return { jobNumber: builtIn, matchedBy: builtIn ? "built-in" : null };
}
