import { GROUPING_PATTERN_LIMITS, worstCasePages } from "@turnout/domain";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { groupingPatterns, groupingSettings } from "../../db/schema.js";
import { GROUPING_DEFAULTS } from "../../db/seed.js";
import { badRequest, notFound } from "../../errors.js";
import { compilePattern, getGroupingSettings } from "../../shared/grouping.js";

type PatternRow = typeof groupingPatterns.$inferSelect;

const LIMITS = GROUPING_PATTERN_LIMITS;

/** Every grouping setting's key: the closed list `PUT /api/message-grouping/settings/:key` accepts. */
export const GROUPING_KEYS = Object.keys(GROUPING_DEFAULTS) as [
  keyof typeof GROUPING_DEFAULTS,
  ...(keyof typeof GROUPING_DEFAULTS)[],
];

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
