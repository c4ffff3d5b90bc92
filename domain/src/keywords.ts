import { z } from "zod/mini";
import { ruleDeliverySchema } from "./push.js";

/** Shown when a rule keyword contains a space or a comma. */
export const KEYWORD_SPACES_COMMAS_MESSAGE =
  "Spaces and commas are not allowed. Use separate keyword fields instead.";
/** Shown when a rule has no non-blank keyword. */
export const KEYWORD_REQUIRED_MESSAGE = "At least one keyword is required.";
/** Longest keyword accepted, in characters. */
export const KEYWORD_MAX_LENGTH = 50;
/** Most keywords one rule may have. */
export const KEYWORDS_MAX_COUNT = 20;

/** Cleans typed keyword input: spaces and commas removed, lower-cased. */
export function sanitizeKeywordInput(raw: string): string {
  return raw.replace(/[\s,]/g, "").toLowerCase();
}

/** Checks rule keywords: at least one non-blank, none with a space or comma; returns them trimmed, lower-cased, blanks dropped. */
export function validateKeywords(
  keywords: string[],
): { ok: true; keywords: string[] } | { ok: false; message: string } {
  const cleaned = keywords.map((k) => k.trim()).filter((k) => k !== "");
  if (cleaned.length === 0) return { ok: false, message: KEYWORD_REQUIRED_MESSAGE };
  if (cleaned.some((k) => /[\s,]/.test(k))) return { ok: false, message: KEYWORD_SPACES_COMMAS_MESSAGE };
  return { ok: true, keywords: cleaned.map((k) => k.toLowerCase()) };
}

/** Tells whether Preview / submit are enabled for these keyword fields. */
export function canPreviewRule(keywords: string[]): boolean {
  return validateKeywords(keywords).ok;
}

/** Tells whether ALL non-blank keywords appear in the same message, ignoring case (no keywords: false). */
export function messageMatchesAllKeywords(message: string, keywords: string[]): boolean {
  const wanted = keywords.map((k) => k.trim().toLowerCase()).filter((k) => k !== "");
  if (wanted.length === 0) return false;
  const text = message.toLowerCase();
  return wanted.every((k) => text.includes(k));
}

/** Message types a rule can be limited to (the form offers emergency, non-emergency, admin). */
export const RULE_PRIORITY_LEVELS = [
  "emergency",
  "non-emergency",
  "admin",
  "administrative",
  "standard",
] as const;

/** Rule keywords: validated as validateKeywords does and returned cleaned. */
const keywordsSchema = z.pipe(
  z.array(z.string().check(z.maxLength(KEYWORD_MAX_LENGTH))).check(z.maxLength(KEYWORDS_MAX_COUNT)),
  z.transform((keywords: string[], ctx) => {
    const result = validateKeywords(keywords);
    if (!result.ok) {
      ctx.issues.push({ code: "custom", message: result.message, input: keywords });
      return z.NEVER;
    }
    return result.keywords;
  }),
);

/** Agencies a rule watches; missing, null or empty means all agencies. */
const ruleAgenciesSchema = z.nullish(
  z.array(z.number().check(z.int(), z.positive())).check(z.maxLength(100)),
);
/** Message types a rule watches; missing, null or empty means all types. */
const rulePriorityLevelsSchema = z.nullish(
  z.array(z.enum(RULE_PRIORITY_LEVELS)).check(z.maxLength(RULE_PRIORITY_LEVELS.length)),
);

/** Body of POST /user-alerts/preview: keywords, optional agencies, optional priority_levels. */
export const alertRulePreviewSchema = z.object({
  keywords: keywordsSchema,
  agencies: ruleAgenciesSchema,
  priority_levels: rulePriorityLevelsSchema,
});
/** A validated rule-preview request. */
export type AlertRulePreview = z.output<typeof alertRulePreviewSchema>;

/** Body of POST /user-alerts and PUT /user-alerts/{id} (SPEC 7). */
export const alertRuleInputSchema = z.extend(alertRulePreviewSchema, {
  name: z.string().check(z.trim(), z.minLength(1, "Name is required"), z.maxLength(100)),
  description: z.nullish(z.string().check(z.trim(), z.maxLength(500))),
  /** How the member hears that the rule fired (issue 15); absent: SMS for a new rule, unchanged on edit. */
  delivery: z.optional(ruleDeliverySchema),
  /**
   * Only pages to the member's units where they chose units (issue 26); absent: true for a new rule,
   * unchanged on edit.
   */
  units_only: z.optional(z.boolean("units_only must be true or false")),
});
/** A validated alert-rule body (keywords cleaned). */
export type AlertRuleInput = z.output<typeof alertRuleInputSchema>;

/** Review states of a user alert rule. */
export const RULE_STATUSES = ["pending", "approved", "rejected", "suspended"] as const;
/** A rule's review state. */
export type RuleStatus = (typeof RULE_STATUSES)[number];

/** Maps any status value to a RuleStatus; unknown values count as pending. */
export function normalizeRuleStatus(status: string | null | undefined): RuleStatus {
  const value = (status ?? "").trim().toLowerCase();
  return (RULE_STATUSES as readonly string[]).includes(value) ? (value as RuleStatus) : "pending";
}
