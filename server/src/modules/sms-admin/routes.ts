import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { idParamsSchema, MAX_INT_ID, queryIntSchema } from "../../request-schemas.js";
import { SMS_STATUSES } from "../../sms/queue.js";
import { handleStuck, listQueue, retryAllFailed } from "../../sms/queue-admin.js";
import { createSmsCheckCache, smsServiceStatus } from "../../sms/status.js";
import { presentQueueItem } from "./present.js";
import { retryOneSms } from "./service.js";

const queueQuery = z.object({
  status: z.enum(SMS_STATUSES, `status must be one of ${SMS_STATUSES.join(", ")}`).optional(),
  limit: queryIntSchema("limit", 1, 500).default(100),
  offset: queryIntSchema("offset", 0, MAX_INT_ID).default(0),
});

/** A message `sending` for longer than this is taken to belong to a crashed worker (the worker's own default). */
const STUCK_DEFAULT_MINUTES = 5;

const stuckBody = z
  .object({
    older_than_minutes: z
      .number()
      .min(0)
      .max(24 * 60)
      .optional(),
  })
  .nullish();

/** SPEC 7 'SMS' and GET /admin/system/sms: the SMS queue and the provider's state (admins only). */
export async function smsAdminRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const check = createSmsCheckCache(app.sms);

  r.get("/admin/sms/queue", { schema: { querystring: queueQuery } }, async (request) => {
    const { items, total } = await listQueue(app.db, request.query);
    const { limit, offset } = request.query;
    return {
      success: true,
      data: items.map(presentQueueItem),
      pagination: { total, limit, offset, has_more: offset + items.length < total },
    };
  });

  r.post("/admin/sms/retry/:id", { schema: { params: idParamsSchema } }, async (request) => {
    await retryOneSms(app.db, request.params.id);
    app.smsWorker.nudge();
    return { success: true, message: "SMS queued again." };
  });

  r.post("/admin/sms/retry-all", async () => {
    const retried = await retryAllFailed(app.db);
    if (retried > 0) app.smsWorker.nudge();
    return { success: true, message: `${retried} failed SMS queued again.`, data: { retried } };
  });

  r.post("/admin/sms/handle-stuck", { schema: { body: stuckBody } }, async (request) => {
    const minutes = request.body?.older_than_minutes ?? STUCK_DEFAULT_MINUTES;
    const released = await handleStuck(app.db, minutes * 60_000);
    if (released > 0) app.smsWorker.nudge();
    return { success: true, message: `${released} stuck SMS released.`, data: { released } };
  });

  r.get("/admin/system/sms", async () => {
    return { success: true, data: await smsServiceStatus(app.db, app.sms, check) };
  });
}
