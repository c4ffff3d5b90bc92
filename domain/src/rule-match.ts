import { messageMatchesAllKeywords } from "./keywords.js";
import { type AlertType, normalizeAlertType } from "./message.js";

/** The parts of a keyword rule that decide whether it fires. */
export type RuleConditions = {
  keywords: readonly string[];
  /** Agency ids; empty or null means every agency of the rule's owner. */
  agencies?: readonly number[] | null;
  /** Message types ('admin' means administrative); empty or null means every type. */
  priority_levels?: readonly string[] | null;
};

/** The parts of an alert a rule looks at. */
export type RuleCandidateAlert = {
  /** Displayed text (network prefix stripped). */
  message: string;
  type: string;
  /** Every agency the message was paged to (one per recipient capcode). */
  agencyIds: readonly number[];
};

/** The alert types a rule's priority levels stand for; null means every type. */
export function rulePriorityTypes(levels: readonly string[] | null | undefined): Set<AlertType> | null {
  if (!levels || levels.length === 0) return null;
  return new Set(levels.map(normalizeAlertType));
}

/**
 * Decides whether a keyword rule fires for an alert (SPEC 5): ALL keywords appear in the message
 * (case-insensitive), the alert's type is one of the rule's levels (none: any), and one of the
 * alert's agencies is both in the rule's agencies (none: any) and assigned to the rule's owner now.
 * Returns the agency it fires for (the lowest such id), or null when it does not fire.
 */
export function ruleFiresFor(
  rule: RuleConditions,
  alert: RuleCandidateAlert,
  ownerAgencyIds: readonly number[],
): number | null {
  const types = rulePriorityTypes(rule.priority_levels);
  if (types && !types.has(normalizeAlertType(alert.type))) return null;
  const owner = new Set(ownerAgencyIds);
  const chosen = rule.agencies && rule.agencies.length > 0 ? new Set(rule.agencies) : null;
  const agencies = alert.agencyIds.filter((id) => owner.has(id) && (!chosen || chosen.has(id)));
  if (agencies.length === 0) return null;
  if (!messageMatchesAllKeywords(alert.message, [...rule.keywords])) return null;
  return Math.min(...agencies);
}
