import { phoneInputSchema } from "@turnout/domain";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { users } from "../../db/schema.js";
import { notFound } from "../../errors.js";
import { actorOf } from "../auth/guard.js";
import { requestMeta } from "../auth/request-meta.js";
import { recordSecurityEvent } from "../security/events.js";
import { consumeRateLimit } from "../security/limits.js";
import { getSecuritySettings } from "../security/settings.js";
import {
  chooseSessionToEvict,
  endOwnSession,
  listActiveSessions,
  presentSession,
  sessionLimitState,
} from "./service.js";

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

  r.post(
    "/sessions/check-limit",
    { config: PUBLIC, schema: { body: z.object({ phone: phoneInputSchema, deviceId: deviceIdSchema }) } },
    async (request) => {
      const settings = await throttle(requestMeta(request).ip);
      const [user] = await app.db.select().from(users).where(eq(users.phone, request.body.phone));
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
        }),
      },
    },
    async (request) => {
      const meta = requestMeta(request);
      await throttle(meta.ip);
      const [user] = await app.db.select().from(users).where(eq(users.phone, request.body.phone));
      if (!user) throw notFound("Session not found");
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
