import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pingDatabase } from "../../db/client.js";

const healthReply = z.object({
  status: z.enum(["ok", "error"]),
  database: z.enum(["up", "down"]),
  cache: z.enum(["up", "down"]),
  /** Lets the web app show the development banner (APP_ENV). */
  environment: z.enum(["development", "production"]),
  timestamp: z.string(),
});

/** GET /api/health: 200 while the database answers, 503 when it does not. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      "/health",
      { config: { access: "public" }, schema: { response: { 200: healthReply, 503: healthReply } } },
      async (_request, reply) => {
        const [dbUp, cacheUp] = await Promise.all([pingDatabase(app.db), app.cache.ping()]);
        return reply.status(dbUp ? 200 : 503).send({
          status: dbUp ? "ok" : "error",
          database: dbUp ? "up" : "down",
          cache: cacheUp ? "up" : "down",
          environment: app.config.appEnv,
          timestamp: new Date().toISOString(),
        });
      },
    );
}
