import { z } from "zod";

// A rule preview reads the same to the member writing the rule and to the admin reviewing it.

/** What a rule would have matched over the last 3 months (SPEC 3 'Alert preview result'). */
export const rulePreviewResultSchema = z.object({
  total_matches: z.number(),
  /** The server stops counting at a cap; true when there were more. */
  total_matches_capped: z
    .boolean()
    .nullish()
    .transform((value) => value === true),
  sample_messages: z
    .array(z.object({ agency_name: z.string().nullish(), created_at: z.string(), message: z.string() }))
    .nullish()
    .transform((value) => value ?? []),
});
/** A rule preview's result. */
export type RulePreviewResult = z.output<typeof rulePreviewResultSchema>;
