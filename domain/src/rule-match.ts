import { messageMatchesAllKeywords } from "./keywords.js";
import { type AlertType, normalizeAlertType } from "./message.js";

/** The parts of a keyword rule that decide whether it fires. */
export type RuleConditions = {
  keywords: readonly string[];
  /** Agency ids; empty or null means every agency of the rule's owner. */
  agencies?: readonly number[] | null;
  /** Message types ('admin' means administrative); empty or null means every type. */
  priority_levels?: readonly string[] | null;
  /**
   * Only alerts paged to the owner's units, in each agency where the owner chose units (issue 26; the
   * default). In an agency where they chose none, the whole agency as before.
   */
  units_only?: boolean | null;
};

/** The parts of an alert a rule looks at. */
export type RuleCandidateAlert = {
  /** Displayed text (network prefix stripped). */
  message: string;
  type: string;
  /** Every agency the message was paged to (one per recipient capcode). */
  agencyIds: readonly number[];
  /** Every capcode the message was paged to. */
  capcodeIds?: readonly number[];
};

/** The capcodes of the owner's units, by agency: only agencies in which the owner chose units are keys. */
export type OwnerUnitCapcodes = ReadonlyMap<number, ReadonlySet<number>>;

/** The alert types a rule's priority levels stand for; null means every type. */
export function rulePriorityTypes(levels: readonly string[] | null | undefined): Set<AlertType> | null {
  if (!levels || levels.length === 0) return null;
  return new Set(levels.map(normalizeAlertType));
}

/**
 * Decides whether a keyword rule fires for an alert (SPEC 5): ALL keywords appear in the message
 * (case-insensitive), the alert's type is one of the rule's levels (none: any), and one of the
 * alert's agencies is both in the rule's agencies (none: any) and assigned to the rule's owner now;
 * with `units_only` (issue 26), in an agency where the owner chose units the alert must also be paged
 * to one of their units' capcodes. Returns the agency it fires for (the lowest such id), or null when
 * it does not fire.
 */
export function ruleFiresFor(
  rule: RuleConditions,
  alert: RuleCandidateAlert,
  ownerAgencyIds: readonly number[],
  ownerUnits: OwnerUnitCapcodes = new Map(),
): number | null {
  const types = rulePriorityTypes(rule.priority_levels);
  if (types && !types.has(normalizeAlertType(alert.type))) return null;
  const owner = new Set(ownerAgencyIds);
  const chosen = rule.agencies && rule.agencies.length > 0 ? new Set(rule.agencies) : null;
  const inUnits = (agencyId: number) => {
    const mine = rule.units_only === false ? undefined : ownerUnits.get(agencyId);
    return !mine || (alert.capcodeIds ?? []).some((c) => mine.has(c));
  };
  const agencies = alert.agencyIds.filter(
    (id) => owner.has(id) && (!chosen || chosen.has(id)) && inUnits(id),
  );
  if (agencies.length === 0) return null;
  if (!messageMatchesAllKeywords(alert.message, [...rule.keywords])) return null;
  return Math.min(...agencies);
}
