import path from "node:path";
import formbody from "@fastify/formbody";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import { type Cache, openCache } from "./cache/cache.js";
import type { Config } from "./config.js";
import { type Database, type DatabaseHandle, openDatabase } from "./db/client.js";
import { seedReferenceData } from "./db/seed.js";
import { registerErrorHandling } from "./errors.js";
import { createLogger } from "./logger.js";
import { healthRoutes } from "./modules/health/routes.js";
import { ensureAdmins } from "./modules/users/service.js";
import { webRoutes } from "./web.js";

declare module "fastify" {
  interface FastifyInstance {
    config: Config;
    db: Database;
    dbKind: DatabaseHandle["kind"];
    cache: Cache;
  }
}

export type AppInstance = FastifyInstance;

export type BuildOptions = {
  /** An already open database (tests share one per file); opened from config when absent. */
  database?: DatabaseHandle;
  cache?: Cache;
  logger?: Logger;
};

/**
 * Builds the whole server: database (migrated and seeded), cache store, every route and the web app.
 * Closing the instance closes what it opened.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database =
    options.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: path.join(config.dataDir, "db") }));
  const cache = options.cache ?? (await openCache(config.redisUrl, config.redisPrefix));

  await seedReferenceData(database.db);
  await ensureAdmins(database.db, config.adminPhones);

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Finish in-flight requests on close, but do not wait for idle keep-alive sockets.
    forceCloseConnections: "idle",
    return503OnClosing: true,
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("config", config);
  app.decorate("db", database.db);
  app.decorate("dbKind", database.kind);
  app.decorate("cache", cache);

  app.addHook("onClose", async () => {
    if (!options.cache) await cache.close();
    if (!options.database) await database.close();
  });

  registerErrorHandling(app);
  await app.register(formbody);
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(webRoutes);

  return app;
}
