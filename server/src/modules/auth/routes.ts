import { codeInputSchema, phoneInputSchema, registrationSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { smsPhoneSchema } from "../../request-schemas.js";
import {
  listDeviceCredentials,
  presentDeviceCredential,
  revokeDeviceCredentials,
} from "../../shared/device-credentials.js";
import { actorOf, optionalActor } from "../../shared/guard.js";
import { deviceMeta, requestMeta } from "../../shared/request-meta.js";
import { recordSecurityEvent } from "../../shared/security/events.js";
import { endSession } from "../../shared/sessions.js";
import { getProfile, listSignupAgencies } from "./profile.js";
import { activateAccount, registerUser } from "./registration.js";
import { recoverSignIn, requestLoginCode, verifyLoginCode } from "./service.js";

const verifyBody = z.object({
  phone: phoneInputSchema,
  otp_code: codeInputSchema,
  deviceId: z.string().optional(),
});

/** Sign-up, sign-in and sign-out are open to anyone (each is rate limited); the profile needs a session. */
const PUBLIC = { access: "public" } as const;

/** SPEC 7 'Auth': registration, activation, one-time codes, sign-in, sign-out, profile. */
export async function authRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const smsPhone = smsPhoneSchema(app.config.smsAllowedCountries);

  r.post(
    "/auth/register",
    { config: PUBLIC, schema: { body: z.object({ ...registrationSchema.shape, phone: smsPhone }) } },
    async (request, reply) => {
      const result = await registerUser(app.services, request.body, requestMeta(request));
      return reply.status(201).send(result);
    },
  );

  r.post(
    "/auth/activate",
    {
      config: PUBLIC,
      schema: { body: z.object({ phone: phoneInputSchema, activation_code: codeInputSchema }) },
    },
    async (request) =>
      activateAccount(
        app.services,
        { phone: request.body.phone, code: request.body.activation_code },
        requestMeta(request),
      ),
  );

  r.post(
    "/auth/request-otp",
    { config: PUBLIC, schema: { body: z.object({ phone: smsPhone }) } },
    async (request) => requestLoginCode(app.services, request.body, requestMeta(request)),
  );

  // The link the operator's recovery command prints (README 'Signing in'): one sign-in, once.
  r.post(
    "/auth/recover",
    {
      config: PUBLIC,
      schema: {
        body: z.object({ token: z.string().trim().min(1).max(2048), deviceId: z.string().optional() }),
      },
    },
    async (request) =>
      recoverSignIn(app.services, request.body.token, deviceMeta(request, request.body.deviceId)),
  );

  // The user's recognised devices (issue 27): each keeps its own sign-in allowance until revoked.
  r.get("/auth/devices", async (request) => {
    const rows = await listDeviceCredentials(app.db, actorOf(request).userId);
    return { success: true, data: rows.map(presentDeviceCredential) };
  });

  r.delete(
    "/auth/devices/:id",
    { schema: { params: z.object({ id: z.string().uuid("Unknown device") }) } },
    async (request) => {
      const actor = actorOf(request);
      await revokeDeviceCredentials(app.db, actor.userId, "user", request.params.id);
      await recordSecurityEvent(app.db, {
        type: "device_credential_revoked",
        userId: actor.userId,
        ip: request.ip,
        details: { credential_id: request.params.id, by: "user" },
      });
      return { success: true, message: "Device removed: it signs in as a new device next time." };
    },
  );

  const verify = async (request: { body: z.infer<typeof verifyBody> } & Parameters<typeof deviceMeta>[0]) =>
    verifyLoginCode(
      app.services,
      { phone: request.body.phone, code: request.body.otp_code },
      deviceMeta(request, request.body.deviceId),
    );
  r.post("/auth/verify-otp", { config: PUBLIC, schema: { body: verifyBody } }, verify);
  // SPEC 7 lists /auth/login too; it is the same sign-in with a one-time code.
  r.post("/auth/login", { config: PUBLIC, schema: { body: verifyBody } }, verify);

  // Best effort by design: a stale or missing token still gets 200, so signing out always works.
  r.post("/auth/logout", { config: PUBLIC }, async (request) => {
    const actor = await optionalActor(app, request);
    if (actor && (await endSession(app.db, actor.sessionId, "logout"))) {
      app.services.live.sessionsEnded([actor.sessionId], "terminated");
    }
    return { success: true, message: "Signed out." };
  });

  r.get("/auth/profile", async (request) => getProfile(app.db, actorOf(request).userId));

  r.get("/auth/agencies", { config: PUBLIC }, async () => listSignupAgencies(app.db));
}
