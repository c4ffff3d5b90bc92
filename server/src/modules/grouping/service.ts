import {
  type AlertType,
  extractJobNumber,
  GROUPING_PATTERN_LIMITS,
  isGroupable,
  oversizedRepetition,
  worstCasePages,
} from "@turnout/domain";
import { asc, eq } from "drizzle-orm";
import { RE2JS } from "re2js";
import type { Database } from "../../db/client.js";
import { groupingPatterns, groupingSettings } from "../../db/schema.js";
import { GROUPING_DEFAULTS } from "../../db/seed.js";
import { badRequest, notFound } from "../../errors.js";

export type GroupingSettings = {
  grouping_enabled: boolean;
  group_window_hours: number;
  duplicate_window_seconds: number;
};

type PatternRow = typeof groupingPatterns.$inferSelect;

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

const LIMITS = GROUPING_PATTERN_LIMITS;

/** Every grouping setting's key: the closed list `PUT /api/message-grouping/settings/:key` accepts. */
export const GROUPING_KEYS = Object.keys(GROUPING_DEFAULTS) as [
  keyof typeof GROUPING_DEFAULTS,
  ...(keyof typeof GROUPING_DEFAULTS)[],
];

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

/**
 * Times a pattern on worst-case pages (domain worstCasePages) before it is saved; throws 400 when one
 * takes more than GROUPING_PATTERN_LIMITS.maxMsPerPage. Each page gets a freshly compiled pattern, so
 * the time includes building the matcher's states for that kind of text, as a page unlike any before
 * costs at ingest; the best of three tries counts (a pause of the machine is not the pattern's). Call
 * after compilePattern has accepted it (its caps bound each try to tens of milliseconds).
 */
export function assertPatternFast(pattern: string): void {
  warmEngine();
  const limit = LIMITS.maxMsPerPage;
  for (const page of worstCasePages(pattern)) {
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const regex = compilePattern(pattern);
      const started = performance.now();
      regex.find(page);
      best = Math.min(best, performance.now() - started);
      if (best <= limit) break;
    }
    if (best > limit) {
      throw badRequest(
        `The pattern is too slow: it took ${best.toFixed(1)} ms on a ${LIMITS.pageLength}-character page, at most ${limit} ms. Use smaller repetition counts or more specific parts (\\d rather than .).`,
      );
    }
  }
}

let engineWarm = false;

/**
 * Runs the engine's matching paths (DFA, capture run) until V8 has optimised them, once per process: a
 * cold engine is ten times slower for its first few pages, and a pattern must not be refused for that.
 */
function warmEngine(): void {
  if (engineWarm) return;
  engineWarm = true;
  for (const pattern of [String.raw`(\d*)*$`, String.raw`JOB\s*#?(\d+)`, ".*X"]) {
    const regex = compilePattern(pattern);
    for (let run = 0; run < 8; run++) for (const page of worstCasePages(pattern)) regex.find(page);
  }
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

export function presentPattern(p: PatternRow) {
  return {
    id: p.id,
    name: p.name,
    pattern: p.pattern,
    description: p.description,
    priority: p.priority,
    is_active: p.isActive,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export type PatternInput = {
  name: string;
  pattern: string;
  description?: string | null;
  priority?: number;
  is_active?: boolean;
};

/** Stores a new pattern; throws 400 (compilePattern, assertPatternFast) for one that is unsafe to run. */
export async function createPattern(db: Database, input: PatternInput) {
  compilePattern(input.pattern);
  assertPatternFast(input.pattern);
  const [row] = await db
    .insert(groupingPatterns)
    .values({
      name: input.name,
      pattern: input.pattern,
      description: input.description ?? null,
      priority: input.priority ?? 100,
      isActive: input.is_active ?? true,
    })
    .returning();
  return presentPattern(row!);
}

/** Changes a pattern; a new text is checked as createPattern's. Throws 404 for an unknown id. */
export async function updatePattern(db: Database, id: number, input: Partial<PatternInput>) {
  if (input.pattern !== undefined) {
    compilePattern(input.pattern);
    assertPatternFast(input.pattern);
  }
  const [row] = await db
    .update(groupingPatterns)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.pattern !== undefined ? { pattern: input.pattern } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      ...(input.is_active !== undefined ? { isActive: input.is_active } : {}),
      updatedAt: new Date(),
    })
    .where(eq(groupingPatterns.id, id))
    .returning();
  if (!row) throw notFound("Pattern not found");
  return presentPattern(row);
}

export async function deletePattern(db: Database, id: number): Promise<void> {
  const rows = await db
    .delete(groupingPatterns)
    .where(eq(groupingPatterns.id, id))
    .returning({ id: groupingPatterns.id });
  if (rows.length === 0) throw notFound("Pattern not found");
}

/** Validates and stores one grouping setting; throws 400 for an unknown key or a bad value. */
export async function updateGroupingSetting(db: Database, key: string, value: unknown) {
  if (!(key in GROUPING_DEFAULTS)) throw badRequest(`Unknown setting '${key}'`);
  let stored: string;
  if (key === "grouping_enabled") {
    if (typeof value !== "boolean" && value !== "true" && value !== "false") {
      throw badRequest("grouping_enabled must be true or false");
    }
    stored = String(value);
  } else {
    const n = Number(value);
    const max = key === "group_window_hours" ? 24 * 30 : 3600;
    if (!Number.isInteger(n) || n < 0 || n > max)
      throw badRequest(`${key} must be a whole number from 0 to ${max}`);
    stored = String(n);
  }
  await db
    .insert(groupingSettings)
    .values({ key, value: stored })
    .onConflictDoUpdate({ target: groupingSettings.key, set: { value: stored, updatedAt: new Date() } });
  return getGroupingSettings(db);
}
