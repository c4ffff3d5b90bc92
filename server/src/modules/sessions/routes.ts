import { phoneInputSchema } from "@turnout/domain";
import { eq } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { users } from "../../db/schema.js";
import { AppError } from "../../errors.js";
import { verifyDeviceCredential } from "../../shared/device-credentials.js";
import { actorOf } from "../../shared/guard.js";
import { requestMeta } from "../../shared/request-meta.js";
import { recordSecurityEvent } from "../../shared/security/events.js";
import { consumeRateLimit } from "../../shared/security/limits.js";
import { getSecuritySettings } from "../../shared/security/settings.js";
import {
  chooseSessionToEvict,
  endOwnSession,
  listActiveSessions,
  presentSession,
  sessionLimitState,
} from "../../shared/sessions.js";
import { verifyEvictionToken } from "../../shared/tokens.js";

const PUBLIC = { access: "public" } as const;

const deviceIdSchema = z.string().trim().min(1, "deviceId is required").max(128);

/** SPEC 7 'Sessions': the session-limit check before sign-in, and a user's own device sessions. */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  /** Throttles the unauthenticated calls, which reveal whether a phone has sessions. */
  const throttle = async (ip: string | null) => {
    const s = await getSecuritySettings(app.db);
    await consumeRateLimit(
      app.cache,
      `sessions:ip:${ip}`,
      s.otp_requests_per_ip * 2,
      s.otp_request_window_seconds,
    );
    return s;
  };

  /**
   * The user a recognised device of this phone belongs to (its credential header), or null: then the
   * caller is a stranger, who learns nothing about the phone's account or its devices (issue 27).
   */
  const recognisedUser = async (request: FastifyRequest, phone: string) => {
    const device = await verifyDeviceCredential(
      app.db,
      app.config.jwtSecret,
      requestMeta(request).credential,
      phone,
    );
    if (!device) return null;
    const [user] = await app.db.select().from(users).where(eq(users.id, device.userId));
    return user ?? null;
  };

  r.post(
    "/sessions/check-limit",
    { config: PUBLIC, schema: { body: z.object({ phone: phoneInputSchema, deviceId: deviceIdSchema }) } },
    async (request) => {
      const settings = await throttle(requestMeta(request).ip);
      const user = await recognisedUser(request, request.body.phone);
      // A stranger always hears the same: go ahead. The limit is told after the code is verified
      // (409 session_limit from verify-otp), when the caller has shown they hold the phone.
      if (!user)
        return { success: true, canCreate: true, sessions: [], maxSessions: settings.max_device_sessions };
      const max = user.maxSessions ?? settings.max_device_sessions;
      const state = await sessionLimitState(app.db, user.id, request.body.deviceId, max);
      return {
        success: true,
        canCreate: state.canCreate,
        maxSessions: max,
        sessions: state.sessions.map((s) => presentSession(s, { maskIp: true })),
      };
    },
  );

  r.post(
    "/sessions/force-logout",
    {
      config: PUBLIC,
      schema: {
        body: z.object({
          phone: phoneInputSchema,
          deviceId: deviceIdSchema,
          sessionIdToLogout: z.string().uuid(),
          /** From verify-otp's 409 session_limit: the code was right (issue 27). */
          eviction_token: z.string().max(2048).optional(),
        }),
      },
    },
    async (request) => {
      const meta = requestMeta(request);
      await throttle(meta.ip);
      const { phone, deviceId, eviction_token: evictionToken } = request.body;
      const [byPhone] = await app.db.select().from(users).where(eq(users.phone, phone));
      // Only a device that proved it holds the phone chooses: a recognised device of it, or one whose
      // code was just verified. Anyone else cannot end, or line up the ending of, someone's session.
      const user =
        (await recognisedUser(request, phone)) ??
        (byPhone &&
        evictionToken &&
        (await verifyEvictionToken(app.config.jwtSecret, evictionToken, byPhone.id, deviceId))
          ? byPhone
          : null);
      if (!user)
        throw new AppError(
          403,
          "forbidden",
          "Enter the code we sent you first; then choose the device to sign out.",
        );
      await chooseSessionToEvict(app.db, user.id, request.body.deviceId, request.body.sessionIdToLogout);
      await recordSecurityEvent(app.db, {
        type: "session_force_logout",
        userId: user.id,
        phone: user.phone,
        ip: meta.ip,
        details: { sessionId: request.body.sessionIdToLogout },
      });
      return {
        success: true,
        message: "That device will be signed out when you finish signing in here.",
      };
    },
  );

  r.get("/sessions/active", async (request) => {
    const actor = actorOf(request);
    const rows = await listActiveSessions(app.db, actor.userId);
    return { success: true, data: rows.map((s) => presentSession(s, { currentSessionId: actor.sessionId })) };
  });

  r.delete(
    "/sessions/:id",
    {
      schema: { params: z.object({ id: z.string().uuid("Unknown session") }) },
    },
    async (request) => {
      await endOwnSession(app.db, actorOf(request).userId, request.params.id);
      app.services.live.sessionsEnded([request.params.id], "terminated");
      return { success: true, message: "Session ended." };
    },
  );
}
