import { type AlertType, extractJobNumber, isGroupable } from "@turnout/domain";
import { asc, eq } from "drizzle-orm";
import RE2 from "re2";
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
/** A compiled admin pattern: an RE2 expression, matched in time linear in the text. */
type CompiledRegex = InstanceType<typeof RE2>;
export type CompiledPattern = { id: number; name: string; regex: CompiledRegex };

const MAX_PATTERN_LENGTH = 200;

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
 * Compiles an admin's pattern with RE2, which runs in time linear in the text whatever the pattern
 * (no backtracking), because admin patterns run on every ingested message: nested or overlapping
 * repetition such as `(\d+)+X` cannot stall ingest. Throws 400 naming the problem when the pattern is
 * empty or too long, does not compile, or uses what RE2 leaves out to stay linear (backreferences,
 * lookahead and lookbehind).
 */
export function compilePattern(pattern: string): CompiledRegex {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw badRequest(`A pattern must be 1 to ${MAX_PATTERN_LENGTH} characters.`);
  }
  try {
    return new RE2(pattern, "i");
  } catch (err) {
    const reason = (err as Error).message;
    if (/invalid perl operator: \(\?<?[=!]/.test(reason)) {
      throw badRequest(
        `Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported: patterns run on RE2, which matches in linear time. (${reason})`,
      );
    }
    if (/invalid escape sequence: \\(\d|k)/.test(reason)) {
      throw badRequest(
        `Backreferences (\\1, \\k<name>) are not supported: patterns run on RE2, which matches in linear time. (${reason})`,
      );
    }
    throw badRequest(`The pattern does not compile: ${reason}`);
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
      // an unusable stored pattern must not stop ingest
    }
  }
  return out;
}

/**
 * The job number that groups a message: admin patterns first (the first capture group, or the whole
 * match), then the SPEC 9 patterns. Null for TIMEUPDATE and administrative messages, which never group.
 */
export function jobNumberFor(
  text: string,
  type: AlertType,
  patterns: readonly CompiledPattern[],
): { jobNumber: string | null; matchedBy: string | null } {
  if (!isGroupable(text, type)) return { jobNumber: null, matchedBy: null };
  for (const p of patterns) {
    const m = p.regex.exec(text);
    const value = (m?.[1] ?? m?.[0])?.trim().toUpperCase();
    if (value) return { jobNumber: value.slice(0, 32), matchedBy: p.name };
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

export async function createPattern(db: Database, input: PatternInput) {
  compilePattern(input.pattern);
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

export async function updatePattern(db: Database, id: number, input: Partial<PatternInput>) {
  if (input.pattern !== undefined) compilePattern(input.pattern);
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
