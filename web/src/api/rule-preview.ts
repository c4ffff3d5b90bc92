import { normalizeRuleStatus } from "@turnout/domain";
import { z } from "zod/mini";
import { orElse, orEmpty } from "./schema-helpers";

// What reads the same to the member writing a rule and to the admin reviewing it: where the rule
// stands, and what it would have matched.

/** Where a rule stands (SPEC 3 'User alert'): an unknown status reads as pending, a missing count as 0. */
export const ruleStandingFields = {
  status: z.pipe(z.nullish(z.string()), z.transform(normalizeRuleStatus)),
  is_active: orElse(z.boolean(), false),
  rejection_reason: orElse(z.string(), ""),
  triggers_last_30_days: orElse(z.number(), 0),
};

/** What a rule would have matched over the last 3 months (SPEC 3 'Alert preview result'). */
export const rulePreviewResultSchema = z.object({
  total_matches: z.number(),
  /** The server stops counting at a cap; true when there were more. */
  total_matches_capped: orElse(z.boolean(), false),
  sample_messages: orEmpty(
    z.array(z.object({ agency_name: z.nullish(z.string()), created_at: z.string(), message: z.string() })),
  ),
});
/** A rule preview's result. */
export type RulePreviewResult = z.output<typeof rulePreviewResultSchema>;
