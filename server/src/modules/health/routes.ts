import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pingDatabase } from "../../db/client.js";

const healthReply = z.object({
  status: z.enum(["ok", "error"]),
  database: z.enum(["up", "down"]),
  /** `not_configured`: a single instance without Redis (the in-process store), a normal install. */
  cache: z.enum(["up", "down", "not_configured"]),
  /** "full" while the database cannot write (the embedded database's disk is full or read-only). */
  storage: z.enum(["ok", "full"]),
  /** Lets the web app show the development banner (APP_ENV). */
  environment: z.enum(["development", "production"]),
  timestamp: z.string(),
});

/**
 * GET /api/health: 200 while the database answers and can write, 503 when it cannot. The cache store
 * is reported but does not fail it: the server serves without Redis (reduced), and its ping is
 * bounded, so health answers within a second whatever Redis does.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/health",
      { config: { access: "public" }, schema: { response: { 200: healthReply, 503: healthReply } } },
      async (_request, reply) => {
        const [dbUp, cache] = await Promise.all([pingDatabase(app.db, app.dbReachability), cacheHealth(app)]);
        const writable = app.dbReachability.storage().writable;
        const ok = dbUp && writable;
        return reply.status(ok ? 200 : 503).send({
          status: ok ? "ok" : "error",
          database: dbUp ? "up" : "down",
          cache,
          storage: writable ? "ok" : "full",
          environment: app.config.appEnv,
          timestamp: new Date().toISOString(),
        });
      },
    );
}

const readyReply = z.object({
  status: z.enum(["ready", "closing", "not_ready"]),
  /** This process (new at each start): tells a restarted instance from the one before it. */
  instance: z.string(),
});

/**
 * GET /api/ready: 200 while this instance takes work (its database answers and it is not shutting
 * down), 503 once it is shutting down or cannot reach its database. With the instance's id, so a
 * rolling restart can tell, through nginx, that the restarted process itself is answering.
 */
export async function readinessRoutes(app: FastifyInstance): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/ready",
      { config: { access: "public" }, schema: { response: { 200: readyReply, 503: readyReply } } },
      async (_request, reply) => {
        const instance = app.lifecycle.instanceId;
        if (app.lifecycle.closing) return reply.status(503).send({ status: "closing", instance });
        const ok = (await pingDatabase(app.db, app.dbReachability)) && app.dbReachability.storage().writable;
        return reply.status(ok ? 200 : 503).send({ status: ok ? "ready" : "not_ready", instance });
      },
    );
}

async function cacheHealth(app: FastifyInstance): Promise<"up" | "down" | "not_configured"> {
  const state = app.cache.state();
  if (state !== "up") return state;
  return (await app.cache.ping()) ? "up" : "down";
}
