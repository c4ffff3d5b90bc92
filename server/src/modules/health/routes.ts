import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pingDatabase } from "../../db/client.js";

const healthReply = z.object({
  status: z.enum(["ok", "error"]),
  database: z.enum(["up", "down"]),
  cache: z.enum(["up", "down"]),
  /** "full" while the database cannot write (the embedded database's disk is full or read-only). */
  storage: z.enum(["ok", "full"]),
  /** Lets the web app show the development banner (APP_ENV). */
  environment: z.enum(["development", "production"]),
  timestamp: z.string(),
});

/** GET /api/health: 200 while the database answers and can write, 503 when it cannot. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/health",
      { config: { access: "public" }, schema: { response: { 200: healthReply, 503: healthReply } } },
      async (_request, reply) => {
        const [dbUp, cacheUp] = await Promise.all([pingDatabase(app.db), app.cache.ping()]);
        const writable = app.dbReachability.storage().writable;
        const ok = dbUp && writable;
        return reply.status(ok ? 200 : 503).send({
          status: ok ? "ok" : "error",
          database: dbUp ? "up" : "down",
          cache: cacheUp ? "up" : "down",
          storage: writable ? "ok" : "full",
          environment: app.config.appEnv,
          timestamp: new Date().toISOString(),
        });
      },
    );
}
