import { detectMessageType, displayText, GROUPING_PATTERN_LIMITS } from "@turnout/domain";
import { asc } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { groupingPatterns } from "../../db/schema.js";
import { idParamsSchema, settingKeySchema } from "../../request-schemas.js";
import {
  activePatterns,
  getGroupingSettings,
  jobNumberFor,
  patternBudgetOverruns,
} from "../../shared/grouping.js";
import {
  createPattern,
  deletePattern,
  GROUPING_KEYS,
  presentPattern,
  updateGroupingSetting,
  updatePattern,
} from "./service.js";

const patternBody = z.object({
  name: z.string().trim().min(1).max(100),
  pattern: z.string().min(1).max(GROUPING_PATTERN_LIMITS.maxLength),
  description: z.string().trim().max(500).nullable().optional(),
  priority: z.number().int().min(0).max(10_000).optional(),
  is_active: z.boolean().optional(),
});

/** SPEC 7 'Message grouping': admins only, reads included (SPEC 6). */
export async function groupingRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const config = { access: "admin" } as const;

  r.get("/message-grouping/config", { config }, async () => ({
    success: true,
    data: {
      settings: await getGroupingSettings(app.db),
      built_in_patterns: [
        "F followed by 6 or more digits",
        "E followed by 4 or more digits, up to 13 characters",
        "J or S followed by 4 or more digits, 5 to 13 characters",
      ],
      never_grouped: ["messages containing TIMEUPDATE", "administrative messages"],
      pattern_limits: GROUPING_PATTERN_LIMITS,
      pages_over_budget: patternBudgetOverruns(),
    },
  }));

  r.get("/message-grouping/patterns", { config }, async () => {
    const rows = await app.db
      .select()
      .from(groupingPatterns)
      .orderBy(asc(groupingPatterns.priority), asc(groupingPatterns.id));
    return { success: true, data: rows.map(presentPattern) };
  });

  r.post("/message-grouping/patterns", { config, schema: { body: patternBody } }, async (request, reply) =>
    reply.status(201).send({ success: true, data: await createPattern(app.db, request.body) }),
  );

  r.put(
    "/message-grouping/patterns/:id",
    { config, schema: { params: idParamsSchema, body: patternBody.partial() } },
    async (request) => ({
      success: true,
      data: await updatePattern(app.db, request.params.id, request.body),
    }),
  );

  r.delete(
    "/message-grouping/patterns/:id",
    { config, schema: { params: idParamsSchema } },
    async (request) => {
      await deletePattern(app.db, request.params.id);
      return { success: true, message: "Pattern deleted." };
    },
  );

  r.get("/message-grouping/settings", { config }, async () => ({
    success: true,
    data: await getGroupingSettings(app.db),
  }));

  r.put(
    "/message-grouping/settings/:key",
    {
      config,
      schema: {
        params: z.object({ key: settingKeySchema(GROUPING_KEYS) }),
        body: z.object({ value: z.union([z.string().max(20), z.number(), z.boolean()]) }),
      },
    },
    async (request) => ({
      success: true,
      data: await updateGroupingSetting(app.db, request.params.key, request.body.value),
    }),
  );

  r.post(
    "/message-grouping/test-extraction",
    { config, schema: { body: z.object({ message: z.string().min(1).max(2000) }) } },
    async (request) => {
      const type = detectMessageType(request.body.message);
      const text = displayText(request.body.message);
      const { jobNumber, matchedBy } = jobNumberFor(text, type, await activePatterns(app.db));
      return {
        success: true,
        data: { job_number: jobNumber, matched_by: matchedBy, type, display_text: text },
      };
    },
  );
}
