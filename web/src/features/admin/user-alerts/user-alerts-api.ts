import type { RuleStatus } from "@turnout/domain";
import { z } from "zod/mini";
import { api } from "../../../api/client";
import {
  type RulePreviewResult,
  rulePreviewResultSchema,
  ruleStandingFields,
} from "../../../api/rule-preview";
import { orElse, orEmpty } from "../../../api/schema-helpers";

const listOf = <T extends z.ZodMiniType>(item: T) => orEmpty(z.array(item));

/** A member's rule as the admin review list carries it: the rule, its owner and its agencies' names. */
export const reviewRuleSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: orElse(z.string(), ""),
  keywords: listOf(z.string()),
  agency_names: listOf(z.string()),
  priority_levels: listOf(z.string()),
  ...ruleStandingFields,
  user: z.nullish(
    z.object({ id: z.number(), first_name: z.string(), last_name: z.string(), phone: z.string() }),
  ),
  updated_at: z.nullish(z.string()),
});
/** A rule under review. */
export type ReviewRule = z.output<typeof reviewRuleSchema>;

/** The review decisions the server takes (POST /admin/user-alerts/{id}/{decision}). */
export type RuleDecision = "approve" | "reject" | "suspend";

interface Envelope {
  success: boolean;
  message?: string;
  data: unknown;
}

/** The pending count of a stats reply or a live `user-alerts:pending` payload; null when absent. */
export function pendingCountFrom(value: unknown): number | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as { pending_alerts?: unknown; overview?: { pending_alerts?: unknown } };
  const pending = record.overview?.pending_alerts ?? record.pending_alerts;
  return typeof pending === "number" && Number.isFinite(pending) && pending >= 0 ? pending : null;
}

/** Pending rules first (they wait for someone), the server's order (latest change first) kept within. */
const STATUS_ORDER: Record<RuleStatus, number> = { pending: 0, approved: 1, suspended: 2, rejected: 3 };

export function pendingFirst(rules: readonly ReviewRule[]): ReviewRule[] {
  return [...rules].sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
}

export const userAlertsAdminApi = {
  async list(status: RuleStatus | null, signal?: AbortSignal): Promise<ReviewRule[]> {
    const reply = await api.get<Envelope>("/admin/user-alerts", {
      query: { status: status ?? undefined },
      signal,
    });
    return pendingFirst(z.array(reviewRuleSchema).parse(reply.data));
  },

  async pendingCount(signal?: AbortSignal): Promise<number> {
    const reply = await api.get<Envelope>("/admin/user-alerts/stats/overview", {
      signal,
      handlesForbidden: true,
    });
    return pendingCountFrom(reply.data) ?? 0;
  },

  /** What the rule would have matched in the last 3 months: the figure its owner's preview showed. */
  async matches(id: number, signal?: AbortSignal): Promise<RulePreviewResult> {
    const reply = await api.get<Envelope>(`/admin/user-alerts/${id}/preview`, { signal });
    return rulePreviewResultSchema.parse(reply.data);
  },

  /** Records a decision; answers the server's message (the user is told by SMS). */
  async decide(id: number, decision: RuleDecision, reason?: string): Promise<string> {
    const reply = await api.post<Envelope>(
      `/admin/user-alerts/${id}/${decision}`,
      decision === "reject" ? { reason } : undefined,
    );
    return reply.message ?? "Saved.";
  },
};
