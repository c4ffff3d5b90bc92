import {
  type AlertRuleInput,
  alertRuleInputSchema,
  DEFAULT_RULE_DELIVERY,
  type RuleDelivery,
  typePresentation,
} from "@turnout/domain";
import type { AlertRule } from "./rules-api";
// English messages for the zod issues the rule form shows.
import "../../app/zod-messages";

/** What the create/edit form holds while the user types. */
export interface RuleDraft {
  name: string;
  description: string;
  keywords: string[];
  agencies: number[];
  priorityLevels: string[];
  /** How the member hears that the rule fired (issue 15). */
  delivery: RuleDelivery;
  /** Only pages to the member's units, where they chose units (issue 26). */
  unitsOnly: boolean;
}

/** The message types the form offers (SPEC 5); blank means all. */
export const OFFERED_PRIORITY_LEVELS = ["emergency", "non-emergency", "admin"] as const;

/** The label a message type shows with, e.g. "Non-Emergency". */
export function priorityLevelLabel(level: string): string {
  return typePresentation(level).label;
}

export function emptyDraft(): RuleDraft {
  return {
    name: "",
    description: "",
    keywords: [""],
    agencies: [],
    priorityLevels: [],
    delivery: DEFAULT_RULE_DELIVERY,
    unitsOnly: true,
  };
}

export function draftFromRule(rule: AlertRule): RuleDraft {
  // "administrative" is what the server may store for the form's "admin".
  const levels = rule.priority_levels.map((level) => (level === "administrative" ? "admin" : level));
  return {
    name: rule.name,
    description: rule.description,
    keywords: rule.keywords.length > 0 ? [...rule.keywords] : [""],
    agencies: [...rule.agencies],
    priorityLevels: [...new Set(levels)],
    delivery: rule.delivery,
    unitsOnly: rule.units_only,
  };
}

export type DraftCheck =
  | { ok: true; input: AlertRuleInput }
  | { ok: false; errors: { name?: string; keywords?: string; other?: string } };

/** Checks a draft with the same schema the server applies to the request body. */
export function checkDraft(draft: RuleDraft): DraftCheck {
  const parsed = alertRuleInputSchema.safeParse({
    name: draft.name,
    description: draft.description.trim() === "" ? null : draft.description,
    keywords: draft.keywords,
    agencies: draft.agencies,
    priority_levels: draft.priorityLevels,
    delivery: draft.delivery,
    units_only: draft.unitsOnly,
  });
  if (parsed.success) return { ok: true, input: parsed.data };
  const errors: { name?: string; keywords?: string; other?: string } = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === "name") errors.name ??= issue.message;
    else if (field === "keywords") errors.keywords ??= issue.message;
    else errors.other ??= issue.message;
  }
  return { ok: false, errors };
}
