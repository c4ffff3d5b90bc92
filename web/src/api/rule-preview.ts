import { z } from "zod/mini";
import { orElse, orEmpty } from "./schema-helpers";

// A rule preview reads the same to the member writing the rule and to the admin reviewing it.

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
