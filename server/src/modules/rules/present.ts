import { normalizeRuleStatus } from "@turnout/domain";
import type { agencies, userAlertRules, users } from "../../db/schema.js";

export type RuleRow = typeof userAlertRules.$inferSelect;
type UserRow = Pick<typeof users.$inferSelect, "id" | "firstName" | "lastName" | "phone">;
type AgencyRow = Pick<typeof agencies.$inferSelect, "id" | "name" | "code">;

/** SPEC 3 'User alert rule': exactly the fields that leave the server. */
export function presentRule(rule: RuleRow, triggersLast30Days: number) {
  return {
    id: rule.id,
    name: rule.name,
    description: rule.description,
    keywords: rule.keywords,
    agencies: rule.agencies,
    priority_levels: rule.priorityLevels,
    delivery: rule.delivery,
    units_only: rule.unitsOnly,
    status: normalizeRuleStatus(rule.status),
    is_active: rule.isActive,
    rejection_reason: rule.rejectionReason,
    triggers_last_30_days: triggersLast30Days,
    reviewed_at: rule.reviewedAt,
    created_at: rule.createdAt,
    updated_at: rule.updatedAt,
  };
}

/** A rule as the admin review list shows it: the rule, its owner and its agencies' names. */
export function presentRuleForReview(
  rule: RuleRow,
  triggersLast30Days: number,
  owner: UserRow,
  agencyRows: ReadonlyMap<number, AgencyRow>,
) {
  return {
    ...presentRule(rule, triggersLast30Days),
    user_id: owner.id,
    user: { id: owner.id, first_name: owner.firstName, last_name: owner.lastName, phone: owner.phone },
    agency_names: rule.agencies.map((id) => agencyRows.get(id)?.name ?? `Agency ${id}`),
  };
}

/** An agency a rule can watch (GET /user-alerts/meta/agencies). */
export function presentRuleAgency(agency: AgencyRow) {
  return { id: agency.id, name: agency.name, code: agency.code };
}
