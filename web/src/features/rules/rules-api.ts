import type { AlertRuleInput, AlertRulePreview } from "@turnout/domain";
import { DEFAULT_RULE_DELIVERY, RULE_DELIVERIES } from "@turnout/domain";
import { z } from "zod/mini";
import { api } from "../../api/client";
import { type RulePreviewResult, rulePreviewResultSchema, ruleStandingFields } from "../../api/rule-preview";
import { orElse, orEmpty } from "../../api/schema-helpers";

/** A user alert rule as the list shows it (SPEC 3); missing lists read as empty, unknown status as pending. */
export const alertRuleSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: orElse(z.string(), ""),
  keywords: orEmpty(z.array(z.string())),
  agencies: orEmpty(z.array(z.number())),
  priority_levels: orEmpty(z.array(z.string())),
  delivery: orElse(z.enum(RULE_DELIVERIES), DEFAULT_RULE_DELIVERY),
  units_only: orElse(z.boolean(), true),
  ...ruleStandingFields,
});
/** A user alert rule, cleaned for display. */
export type AlertRule = z.output<typeof alertRuleSchema>;

/** An agency a rule can watch (GET /user-alerts/meta/agencies). */
export const ruleAgencySchema = z.object({ id: z.number(), name: z.string(), code: z.string() });
/** An agency a rule can watch. */
export type RuleAgency = z.output<typeof ruleAgencySchema>;

interface Envelope {
  success: boolean;
  data: unknown;
}

export const rulesApi = {
  async list(): Promise<AlertRule[]> {
    const reply = await api.get<Envelope>("/user-alerts");
    return z.array(alertRuleSchema).parse(reply.data);
  },

  async agencies(): Promise<RuleAgency[]> {
    const reply = await api.get<Envelope>("/user-alerts/meta/agencies");
    return z.array(ruleAgencySchema).parse(reply.data);
  },

  async preview(input: AlertRulePreview): Promise<RulePreviewResult> {
    const reply = await api.post<Envelope>("/user-alerts/preview", input);
    return rulePreviewResultSchema.parse(reply.data);
  },

  async create(input: AlertRuleInput): Promise<AlertRule> {
    const reply = await api.post<Envelope>("/user-alerts", input);
    return alertRuleSchema.parse(reply.data);
  },

  async update(id: number, input: AlertRuleInput): Promise<AlertRule> {
    const reply = await api.put<Envelope>(`/user-alerts/${id}`, input);
    return alertRuleSchema.parse(reply.data);
  },

  async remove(id: number): Promise<void> {
    await api.delete(`/user-alerts/${id}`);
  },

  async toggle(id: number): Promise<AlertRule> {
    const reply = await api.patch<Envelope>(`/user-alerts/${id}/toggle`);
    return alertRuleSchema.parse(reply.data);
  },
};
