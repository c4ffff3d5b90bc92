import { PUSH_AGENCY_MODES, pushSubscriptionSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { rateLimited } from "../../errors.js";
import { recordIdSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import {
  pushPreferences,
  queueTestPush,
  removeSubscription,
  saveSubscription,
  setAgencyModes,
} from "./service.js";

/** Test notifications one device may ask for per minute. */
const TESTS_PER_MINUTE = 5;

const preferencesBody = z.object({
  agencies: z
    .array(
      z.object({
        agency_id: recordIdSchema,
        mode: z.enum(PUSH_AGENCY_MODES, "mode must be 'units', 'emergency' or 'none'"),
      }),
    )
    .max(100),
});

/** Web Push (issue 15): the public key, this device's subscription, the member's choices, a test. */
export async function pushRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const extraHosts = app.config.push.extraEndpointHosts;

  r.get("/push/config", async () => ({ success: true, enabled: true, public_key: app.push.publicKey }));

  r.get("/push/preferences", async (request) => ({
    success: true,
    ...(await pushPreferences(app.db, actorOf(request))),
  }));

  r.put("/push/preferences", { schema: { body: preferencesBody } }, async (request) => {
    const actor = actorOf(request);
    await setAgencyModes(app.db, actor, request.body.agencies);
    return { success: true, ...(await pushPreferences(app.db, actor)) };
  });

  r.put("/push/subscription", { schema: { body: pushSubscriptionSchema } }, async (request) => {
    await saveSubscription(app.db, actorOf(request), request.body, extraHosts);
    return { success: true, device_subscribed: true };
  });

  r.delete("/push/subscription", async (request) => {
    await removeSubscription(app.db, actorOf(request));
    return { success: true, device_subscribed: false };
  });

  r.post("/push/test", async (request, reply) => {
    const actor = actorOf(request);
    // Each test is a request to the device's push service: a few a minute is plenty for a person.
    const { count, ttlSeconds } = await app.cache.increment(`push-test:${actor.sessionId}`, 60, {
      whenDown: "count-locally",
    });
    if (count > TESTS_PER_MINUTE)
      throw rateLimited("Too many test notifications. Please wait a minute and try again.", ttlSeconds);
    await queueTestPush(app.db, actor);
    app.push.worker.nudge();
    return reply.code(202).send({ success: true, queued: true });
  });
}
