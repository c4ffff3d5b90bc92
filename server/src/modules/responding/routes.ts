import { RESPONSE_ETAS, RESPONSE_STATUSES } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bigIdListSchema, bigIdParamsSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { presentAdminDetail, presentDetail, presentSummary } from "./present.js";
import { adminJobDetail, answerJob, jobDetail, listSummaries, withdrawAnswer } from "./service.js";

/** Most jobs one batch of counts covers (a screenful of cards). */
export const RESPONSE_SUMMARY_MAX_IDS = 100;

const answerBody = z.object({
  status: z.enum(RESPONSE_STATUSES, "status must be 'responding' or 'not_available'"),
  eta_minutes: z.literal(RESPONSE_ETAS, "eta_minutes must be 5, 10, 15 or null").nullable().optional(),
  answered_at: z.iso.datetime({ offset: true, error: "answered_at must be an ISO date and time" }).optional(),
});

/**
 * Who is responding to an emergency job (issue 15): members of the agencies a job was paged to answer
 * 'responding' or 'not available'; everyone in those agencies sees the counts live, and names of their
 * own agency's members. Admins read every job's answers in the console.
 */
export async function respondingRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const windowHours = app.config.responseWindowHours;
  const byId = { schema: { params: bigIdParamsSchema } };

  r.get(
    "/alerts/responses",
    { schema: { querystring: z.object({ ids: bigIdListSchema("ids", RESPONSE_SUMMARY_MAX_IDS) }) } },
    async (request) => {
      const summaries = await listSummaries(app.db, actorOf(request), request.query.ids, windowHours);
      return { success: true, items: summaries.map(presentSummary) };
    },
  );

  r.get("/alerts/:id/responses", byId, async (request) => ({
    success: true,
    ...presentDetail(await jobDetail(app.db, actorOf(request), request.params.id, windowHours)),
  }));

  r.put("/alerts/:id/response", { schema: { ...byId.schema, body: answerBody } }, async (request) => {
    const body = request.body;
    const detail = await answerJob(app.services, actorOf(request), request.params.id, {
      status: body.status,
      etaMinutes: body.eta_minutes ?? null,
      answeredAt: body.answered_at ? new Date(body.answered_at) : null,
    });
    return { success: true, ...presentDetail(detail) };
  });

  r.delete("/alerts/:id/response", byId, async (request) => {
    const detail = await withdrawAnswer(app.services, actorOf(request), request.params.id);
    return { success: true, ...presentDetail(detail) };
  });

  r.get("/admin/alerts/:id/responses", byId, async (request) => ({
    success: true,
    ...presentAdminDetail(await adminJobDetail(app.db, request.params.id, windowHours)),
  }));
}
