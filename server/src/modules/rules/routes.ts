import { alertRuleInputSchema, alertRulePreviewSchema, RULE_STATUSES } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { badRequest } from "../../errors.js";
import { idParamsSchema, MAX_INT_ID, queryIntSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { previewRule, previewRuleForReview } from "./preview.js";
import { listRulesForReview, reviewRule, ruleStats } from "./review.js";
import { createRule, deleteRule, listRuleAgencies, listRules, toggleRule, updateRule } from "./service.js";

const toggleBody = z.object({ is_active: z.boolean().optional() }).nullish();

const reviewListQuery = z.object({
  status: z.enum(RULE_STATUSES, `status must be one of ${RULE_STATUSES.join(", ")}`).optional(),
  limit: queryIntSchema("limit", 1, 500).default(200),
  offset: queryIntSchema("offset", 0, MAX_INT_ID).default(0),
});

const rejectBody = z.object({
  reason: z
    .string("A reason is required.")
    .trim()
    .min(1, "A reason is required.")
    .max(500, "The reason must be at most 500 characters."),
});

/**
 * Parses a body with a domain schema, answering 400 with the schema's own message (the SPEC 5 texts,
 * e.g. 'Spaces and commas are not allowed. Use separate keyword fields instead.') and the failing fields.
 */
function parseBody<T extends z.core.$ZodType>(schema: T, body: unknown): z.output<T> {
  const result = z.safeParse(schema, body ?? {});
  if (result.success) return result.data;
  const fields = result.error.issues.map((i) => ({
    field: ["body", ...i.path.map(String)].join("."),
    message: i.message,
  }));
  throw badRequest(fields[0]?.message ?? "Invalid request", { fields });
}

/** SPEC 7 'User alert rules': a signed-in user's own keyword SMS rules. */
export async function userAlertRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/user-alerts", async (request) => {
    return { success: true, data: await listRules(app.db, actorOf(request)) };
  });

  r.get("/user-alerts/meta/agencies", async (request) => {
    return { success: true, data: await listRuleAgencies(app.db, actorOf(request)) };
  });

  r.post("/user-alerts/preview", async (request) => {
    const input = parseBody(alertRulePreviewSchema, request.body);
    return { success: true, data: await previewRule(app.db, actorOf(request), input) };
  });

  r.post("/user-alerts", async (request, reply) => {
    const input = parseBody(alertRuleInputSchema, request.body);
    const rule = await createRule(app.services, actorOf(request), input);
    return reply.status(201).send({
      success: true,
      message: "Alert rule saved. An admin will review it before it sends SMS.",
      data: rule,
    });
  });

  r.put("/user-alerts/:id", { schema: { params: idParamsSchema } }, async (request) => {
    const input = parseBody(alertRuleInputSchema, request.body);
    const rule = await updateRule(app.services, actorOf(request), request.params.id, input);
    return { success: true, message: "Alert rule updated. An admin will review the change.", data: rule };
  });

  r.delete("/user-alerts/:id", { schema: { params: idParamsSchema } }, async (request) => {
    await deleteRule(app.services, actorOf(request), request.params.id);
    return { success: true, message: "Alert rule deleted." };
  });

  r.patch(
    "/user-alerts/:id/toggle",
    { schema: { params: idParamsSchema, body: toggleBody } },
    async (request) => {
      const rule = await toggleRule(
        app.services,
        actorOf(request),
        request.params.id,
        request.body?.is_active,
      );
      return {
        success: true,
        message: rule.is_active ? "Alert rule turned on." : "Alert rule turned off.",
        data: rule,
      };
    },
  );
}

/** SPEC 7 admin review of user alert rules (admins only). */
export async function adminUserAlertRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/user-alerts", { schema: { querystring: reviewListQuery } }, async (request) => {
    const { items, total } = await listRulesForReview(app.db, request.query);
    const { limit, offset } = request.query;
    return {
      success: true,
      data: items,
      pagination: { total, limit, offset, has_more: offset + items.length < total },
    };
  });

  r.get("/admin/user-alerts/stats/overview", async () => {
    return { success: true, data: await ruleStats(app.db) };
  });

  // On demand per rule (the tab's 'Check matches'): a list of hundreds of rules runs no counts.
  r.get("/admin/user-alerts/:id/preview", { schema: { params: idParamsSchema } }, async (request) => {
    return { success: true, data: await previewRuleForReview(app.db, request.params.id) };
  });

  r.post("/admin/user-alerts/:id/approve", { schema: { params: idParamsSchema } }, async (request) => {
    const rule = await reviewRule(app.services, actorOf(request), request.params.id, "approve");
    return { success: true, message: "Alert rule approved; the user has been told by SMS.", data: rule };
  });

  r.post("/admin/user-alerts/:id/reject", { schema: { params: idParamsSchema } }, async (request) => {
    const { reason } = parseBody(rejectBody, request.body);
    const rule = await reviewRule(app.services, actorOf(request), request.params.id, "reject", reason);
    return { success: true, message: "Alert rule rejected; the user has been told by SMS.", data: rule };
  });

  r.post("/admin/user-alerts/:id/suspend", { schema: { params: idParamsSchema } }, async (request) => {
    const rule = await reviewRule(app.services, actorOf(request), request.params.id, "suspend");
    return { success: true, message: "Alert rule suspended; the user has been told by SMS.", data: rule };
  });
}
