import { RESPONSE_ETAS, RESPONSE_STATUSES } from "@turnout/domain";
import { z } from "zod/mini";
import { api } from "../../api/client";
import { orElse } from "../../api/schema-helpers";

export const responseStatusSchema = z.enum(RESPONSE_STATUSES);
export const responseEtaSchema = z.literal(RESPONSE_ETAS);

/** An ETA the server may leave out or send as null: null. */
const etaSchema = orElse(responseEtaSchema, null);

/** The caller's own answer to a job. */
export const myResponseSchema = z.object({
  status: responseStatusSchema,
  eta_minutes: etaSchema,
  answered_at: z.string(),
});
export type MyResponse = z.infer<typeof myResponseSchema>;

/** The counts of one job as a card shows them (one item of GET /alerts/responses). */
export const responseSummarySchema = z.object({
  alert_id: z.number(),
  job_alert_id: z.number(),
  responding: z.number(),
  not_available: z.number(),
  mine: z.nullable(myResponseSchema),
  open: z.boolean(),
  closes_at: z.string(),
});
export type ResponseSummary = z.infer<typeof responseSummarySchema>;

/** One member's answer as listed in the popup (members of the caller's agencies only). */
export const respondentSchema = z.object({
  user_id: z.number(),
  first_name: z.string(),
  last_name: z.string(),
  status: responseStatusSchema,
  eta_minutes: etaSchema,
  answered_at: z.string(),
});
export type Respondent = z.infer<typeof respondentSchema>;

/** GET /alerts/:id/responses, and the answer to PUT and DELETE of /alerts/:id/response. */
export const jobResponsesSchema = z.extend(responseSummarySchema, { people: z.array(respondentSchema) });
export type JobResponses = z.infer<typeof jobResponsesSchema>;

/** GET /admin/alerts/:id/responses: everyone's answers, with the agencies each member belongs to. */
export const adminJobResponsesSchema = z.object({
  job_alert_id: z.number(),
  responding: z.number(),
  not_available: z.number(),
  open: z.boolean(),
  closes_at: z.string(),
  people: z.array(z.extend(respondentSchema, { agency_names: z.array(z.string()) })),
});
export type AdminJobResponses = z.infer<typeof adminJobResponsesSchema>;

/** PUT /alerts/:id/response: the answer, its ETA, and for an answer given offline the time it was given. */
export const answerSchema = z.object({
  status: responseStatusSchema,
  eta_minutes: z.optional(z.nullable(responseEtaSchema)),
  answered_at: z.optional(z.string()),
});
export type Answer = z.infer<typeof answerSchema>;

/** The batch route takes at most this many alert ids. */
export const MAX_SUMMARY_IDS = 100;

const summariesReply = z.object({ items: z.array(responseSummarySchema) });

export const respondingApi = {
  /** The counts of up to 100 jobs at once; alerts that take no answers or cannot be read are left out. */
  async listSummaries(alertIds: readonly number[], signal?: AbortSignal): Promise<ResponseSummary[]> {
    const reply = await api.get("/alerts/responses", { signal, query: { ids: alertIds.join(",") } });
    return summariesReply.parse(reply).items;
  },

  /** One job's counts, the caller's answer and the names of the members of the caller's agencies. */
  async getJob(alertId: number, signal?: AbortSignal): Promise<JobResponses> {
    return jobResponsesSchema.parse(
      await api.get(`/alerts/${alertId}/responses`, { signal, handlesForbidden: true }),
    );
  },

  /** Answer (or change the answer to) a job. */
  async answer(alertId: number, answer: Answer): Promise<JobResponses> {
    return jobResponsesSchema.parse(
      await api.put(`/alerts/${alertId}/response`, answerSchema.parse(answer), { handlesForbidden: true }),
    );
  },

  /** Withdraw the caller's answer. */
  async withdraw(alertId: number): Promise<JobResponses> {
    return jobResponsesSchema.parse(
      await api.delete(`/alerts/${alertId}/response`, { handlesForbidden: true }),
    );
  },

  /** Admins: every answer to a job. */
  async getAdminJob(alertId: number, signal?: AbortSignal): Promise<AdminJobResponses> {
    return adminJobResponsesSchema.parse(await api.get(`/admin/alerts/${alertId}/responses`, { signal }));
  },
};
