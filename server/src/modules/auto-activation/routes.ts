import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { recordIdSchema } from "../../request-schemas.js";
import { isAutoActivationEnabled } from "../../shared/account-activation.js";
import { actorOf } from "../../shared/guard.js";
import { adminNotificationsView, setAdminNotifications, setAutoActivation } from "./service.js";

const configBody = z.object({ enabled: z.boolean("enabled must be true or false") });

const notificationsBody = z.object({
  enabled: z.boolean("enabled must be true or false"),
  admin_ids: z.array(recordIdSchema).max(100, "at most 100 admins").optional(),
});

/** SPEC 7 'Auto-activation': whether verified accounts become active at once, and who hears of the rest. */
export async function autoActivationRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/auto-activation/config", async () => ({
    success: true,
    data: { enabled: await isAutoActivationEnabled(app.db) },
  }));

  r.put("/admin/auto-activation/config", { schema: { body: configBody } }, async (request) => ({
    success: true,
    data: await setAutoActivation(app.db, actorOf(request), request.body.enabled, request.ip),
  }));

  r.get("/admin/auto-activation/admin-notifications", async () => ({
    success: true,
    data: await adminNotificationsView(app.db),
  }));

  r.put(
    "/admin/auto-activation/admin-notifications",
    { schema: { body: notificationsBody } },
    async (request) => ({
      success: true,
      data: await setAdminNotifications(
        app.db,
        actorOf(request),
        { enabled: request.body.enabled, adminIds: request.body.admin_ids },
        request.ip,
      ),
    }),
  );
}
