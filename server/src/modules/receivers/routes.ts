import { receiverFieldsSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { badRequest } from "../../errors.js";
import { bigIdParamsSchema, idParamsSchema, recordIdSchema } from "../../request-schemas.js";
import { recordAdminAction } from "../../shared/admin-actions.js";
import { actorOf } from "../../shared/guard.js";
import {
  DEFAULT_ROTATION_GRACE_HOURS,
  issueReceiverKey,
  MAX_ROTATION_GRACE_HOURS,
  revokeReceiverKey,
  rotateReceiverKeys,
} from "./keys.js";
import {
  createReceiver,
  deleteReceiver,
  getReceiver,
  listReceivers,
  presentReceiver,
  receiversOfAlert,
  updateReceiver,
} from "./service.js";

const createBody = z.object({
  ...receiverFieldsSchema.shape,
  expected_agency_ids: z
    .array(recordIdSchema, "expected_agency_ids must be a list of agency ids")
    .max(200, "at most 200 agencies")
    .optional(),
});
const updateBody = createBody
  .partial()
  .refine((b) => Object.values(b).some((v) => v !== undefined), "Give at least one field to change");
const rotateBody = z
  .object({
    grace_hours: z
      .number("grace_hours must be a number of hours")
      .min(0, `grace_hours must be from 0 to ${MAX_ROTATION_GRACE_HOURS}`)
      .max(MAX_ROTATION_GRACE_HOURS, `grace_hours must be from 0 to ${MAX_ROTATION_GRACE_HOURS}`)
      .default(DEFAULT_ROTATION_GRACE_HOURS),
  })
  .default({ grace_hours: DEFAULT_ROTATION_GRACE_HOURS });
const keyParams = z.object({ id: recordIdSchema, keyId: recordIdSchema });

/**
 * Admin: receivers (issue 33): register, change and delete them, their keys (issued, rotated without
 * downtime, revoked), and which receivers heard an alert.
 */
export async function receiverRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/receivers", async () => ({ success: true, data: await listReceivers(app.db) }));

  r.post("/admin/receivers", { schema: { body: createBody } }, async (request, reply) => {
    const row = await createReceiver(app.db, request.body);
    // A new receiver gets its first key at once: shown this once.
    const key = await issueReceiverKey(app.db, row.id, actorOf(request).userId);
    await recordAdminAction(app.db, actorOf(request), request.ip, {
      type: "admin_config_changed",
      message: `Receiver ${row.name} registered`,
      details: { receiver_id: row.id },
    });
    return reply.status(201).send({ success: true, data: { ...presentReceiver(row), key } });
  });

  r.patch(
    "/admin/receivers/:id",
    { schema: { params: idParamsSchema, body: updateBody } },
    async (request) => {
      const row = await updateReceiver(app.db, request.params.id, request.body);
      await recordAdminAction(app.db, actorOf(request), request.ip, {
        type: "admin_config_changed",
        message: `Receiver ${row.name} changed`,
        details: { receiver_id: row.id, fields: Object.keys(request.body) },
      });
      return { success: true, data: presentReceiver(row) };
    },
  );

  r.delete("/admin/receivers/:id", { schema: { params: idParamsSchema } }, async (request) => {
    const existing = await getReceiver(app.db, request.params.id);
    if (existing.kind === "legacy")
      throw badRequest("The legacy receiver stands for INGEST_API_KEY: unset that variable instead.");
    const row = await deleteReceiver(app.db, request.params.id);
    await recordAdminAction(app.db, actorOf(request), request.ip, {
      type: "admin_config_changed",
      message: `Receiver ${row.name} deleted; its keys no longer work`,
      details: { receiver_id: row.id },
    });
    return { success: true, message: "Receiver deleted." };
  });

  r.post(
    "/admin/receivers/:id/keys",
    { schema: { params: idParamsSchema, body: rotateBody } },
    async (request, reply) => {
      const row = await getReceiver(app.db, request.params.id);
      if (row.kind === "legacy")
        throw badRequest("The legacy receiver's key is INGEST_API_KEY; register a receiver for its own key.");
      const key = await rotateReceiverKeys(app.db, row.id, request.body.grace_hours, actorOf(request).userId);
      await recordAdminAction(app.db, actorOf(request), request.ip, {
        type: "admin_config_changed",
        message: `Receiver ${row.name}: new key issued; earlier keys valid for ${request.body.grace_hours} more hours`,
        details: { receiver_id: row.id, key_id: key.id, grace_hours: request.body.grace_hours },
      });
      return reply.status(201).send({ success: true, data: key });
    },
  );

  r.delete("/admin/receivers/:id/keys/:keyId", { schema: { params: keyParams } }, async (request) => {
    const row = await getReceiver(app.db, request.params.id);
    await revokeReceiverKey(app.db, row.id, request.params.keyId);
    await recordAdminAction(app.db, actorOf(request), request.ip, {
      type: "admin_config_changed",
      message: `Receiver ${row.name}: key revoked`,
      details: { receiver_id: row.id, key_id: request.params.keyId },
    });
    return { success: true, message: "Key revoked." };
  });

  r.get("/admin/alerts/:id/receivers", { schema: { params: bigIdParamsSchema } }, async (request) => ({
    success: true,
    data: await receiversOfAlert(app.db, request.params.id),
  }));
}
