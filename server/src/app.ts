import { randomBytes } from "node:crypto";
import path from "node:path";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Server as SocketServer } from "socket.io";
import { registerApiRequestGuard } from "./api-request-guard.js";
import { type Cache, openCache } from "./cache/cache.js";
import type { Config } from "./config.js";
import type { ServiceContext } from "./context.js";
import { type Database, type DatabaseHandle, openDatabase } from "./db/client.js";
import { seedReferenceData } from "./db/seed.js";
import { DatabaseUpkeep } from "./db/upkeep.js";
import { registerErrorHandling } from "./errors.js";
import { DomainEventBus } from "./events.js";
import { registerInputGuard } from "./input-guard.js";
import { createLiveGateway } from "./live/gateway.js";
import { createLogger } from "./logger.js";
import { agencyRoutes } from "./modules/agencies/routes.js";
import { alertRoutes } from "./modules/alerts/routes.js";
import { searchAlerts } from "./modules/alerts/service.js";
import { WordBlockSealer } from "./modules/alerts/word-blocks.js";
import { authRoutes } from "./modules/auth/routes.js";
import { autoActivationRoutes } from "./modules/auto-activation/routes.js";
import { capcodeRoutes } from "./modules/capcodes/routes.js";
import { clientErrorRoutes } from "./modules/client-errors/routes.js";
import { displayRoutes } from "./modules/displays/routes.js";
import { feedbackMediaRoutes, feedbackRoutes } from "./modules/feedback/routes.js";
import { openFeedbackRuntime } from "./modules/feedback/runtime.js";
import { groupingRoutes } from "./modules/grouping/routes.js";
import { healthRoutes, readinessRoutes } from "./modules/health/routes.js";
import { ingestRoutes } from "./modules/ingest/routes.js";
import { mapRoutes } from "./modules/map/routes.js";
import { registerMetrics } from "./modules/metrics/metrics.js";
import { postcodeRoutes } from "./modules/postcodes/routes.js";
import { pushRoutes } from "./modules/push/routes.js";
import { MonitorChecker } from "./modules/receivers/checker.js";
import { receiverRoutes } from "./modules/receivers/routes.js";
import { respondingRoutes } from "./modules/responding/routes.js";
import { RuleMatcher } from "./modules/rules/matcher.js";
import { adminUserAlertRoutes, userAlertRoutes } from "./modules/rules/routes.js";
import { securityRoutes } from "./modules/security/routes.js";
import { sessionRoutes } from "./modules/sessions/routes.js";
import { smsAdminRoutes } from "./modules/sms-admin/routes.js";
import { systemRoutes } from "./modules/system/routes.js";
import { unitRoutes } from "./modules/units/routes.js";
import { userFilterRoutes } from "./modules/user-filters/routes.js";
import { userRoutes } from "./modules/users/routes.js";
import { ensureAdmins } from "./modules/users/service.js";
import { loadVapidKeys } from "./push/vapid.js";
import { PushWorker } from "./push/worker.js";
import { registerResponseCompression } from "./response-compression.js";
import { registerSecurityHeaders } from "./security-headers.js";
import { registerAuthGuard } from "./shared/guard.js";
import { countSentSms } from "./shared/security/sms-budget.js";
import { type ConfiguredSms, createSmsProvider } from "./sms/select-provider.js";
import { SmsWorker } from "./sms/worker.js";
import { subscribeModules } from "./subscriptions.js";
import { pruneSystemLog } from "./system-log.js";
import { webRoutes } from "./web.js";

declare module "fastify" {
  interface FastifyInstance {
    config: Config;
    db: Database;
    dbKind: DatabaseHandle["kind"];
    quickDb: DatabaseHandle["quick"];
    dbReachability: DatabaseHandle["reachability"];
    cache: Cache;
    services: ServiceContext;
    smsWorker: SmsWorker;
    sms: ConfiguredSms;
    ruleMatcher: RuleMatcher;
    /** Receivers' silence and the delivery side's alarms (issue 33): one instance checks at a time. */
    monitorChecker: MonitorChecker;
    /** Web Push (issue 15): the public VAPID key browsers subscribe with, and the sender. */
    push: { publicKey: string; worker: PushWorker };
    io: SocketServer;
    /** Every route as registered (method, url, config, schema): the route-table tests read it. */
    routeTable: readonly RouteOptions[];
    /**
     * This process among the instances (random, new at each start: a restarted instance has a new
     * one) and whether it is shutting down; GET /api/ready reports both (deploy/rolling-restart.sh).
     * `closingStep`: what a shutdown is waiting for (in-flight requests, then each worker, the cache
     * store, the database), so a shutdown that runs out of time can say what held it.
     */
    lifecycle: {
      instanceId: string;
      closing: boolean;
      closingStep: string | null;
      /** Requests not yet answered, by request id: what a shutdown that runs out of time names. */
      inFlight: Map<string, InFlightRequest>;
    };
  }
}

export type AppInstance = FastifyInstance;

export type BuildOptions = {
  /** An already open database (tests share one per file); opened from config when absent. */
  database?: DatabaseHandle;
  cache?: Cache;
  logger?: Logger;
  /**
   * Work for this thread while the database opens (it opens on its own thread when embedded, or over
   * the network): the start-up overlaps the two instead of doing one after the other.
   */
  whileDatabaseOpens?: () => void;
};

/** How long a shutdown waits for requests under way before it ends their connections. */
export const IN_FLIGHT_GRACE_MS = 6_000;

/** A request under way: what it is and since when. */
export type InFlightRequest = { method: string; url: string; since: number };

/** The requests under way, for a log line: what each is and for how long it has run. */
export function describeInFlight(inFlight: Map<string, InFlightRequest>) {
  return [...inFlight.values()].map((r) => ({
    request: `${r.method} ${r.url}`,
    forMs: Date.now() - r.since,
  }));
}

/**
 * Builds the whole server: database (migrated and seeded), cache store, every route and the web app.
 * Closing the instance closes what it opened.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const opening =
    options.database ??
    openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: path.join(config.dataDir, "db") });
  options.whileDatabaseOpens?.();
  const database = await opening;
  database.reachability.useLogger(logger);
  const cache = options.cache ?? (await openCache(config.redisUrl, config.redisPrefix, logger));

  await seedReferenceData(database.db);
  await ensureAdmins(database.db, config.adminPhones);

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // A client that trickles its headers or body holds a connection and its memory: answered 408 and
    // closed once over time (Node checks every connectionsCheckingInterval, so within a quarter more).
    requestTimeout: config.http.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(50, Math.min(5000, config.http.headersTimeoutMs / 4)),
    },
    // Finish in-flight requests on close, but do not wait for idle keep-alive sockets.
    forceCloseConnections: "idle",
    return503OnClosing: true,
  });

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate("config", config);
  app.decorate("db", database.db);
  app.decorate("dbKind", database.kind);
  app.decorate("quickDb", database.quick);
  app.decorate("dbReachability", database.reachability);
  app.decorate("cache", cache);

  const sms = createSmsProvider(config, logger);
  const smsWorker: SmsWorker = new SmsWorker({
    db: database.db,
    provider: sms.provider,
    logger,
    allowedCountries: config.smsAllowedCountries,
    onSent: () => countSentSms({ db: database.db, cache, nudgeSms: () => smsWorker.nudge() }),
  });
  app.decorate("smsWorker", smsWorker);
  app.decorate("sms", sms);
  const vapidKeys = await loadVapidKeys(config, database.db, database.kind);
  const pushWorker = new PushWorker({
    db: database.db,
    logger,
    keys: vapidKeys,
    subject: config.push.subject,
  });
  app.decorate("push", { publicKey: vapidKeys.publicKey, worker: pushWorker });
  const ruleMatcher = new RuleMatcher({
    db: database.db,
    cache,
    logger,
    publicUrl: config.publicUrl,
    nudgeSms: () => smsWorker.nudge(),
    nudgePush: () => pushWorker.nudge(),
  });
  app.decorate("ruleMatcher", ruleMatcher);
  // PGlite's searches never read the word blocks (pageRows): nothing to fill there.
  const wordBlockSealer =
    database.kind === "postgres" ? new WordBlockSealer({ db: database.db, logger }) : null;
  const upkeep = new DatabaseUpkeep({
    db: database.db,
    kind: database.kind,
    logger,
    prune: () => pruneSystemLog(database.db),
  });
  const live = await createLiveGateway(app);
  app.decorate("io", live.io);
  const monitorChecker = new MonitorChecker({
    db: database.db,
    config: config.monitor,
    logger,
    nudgeSms: () => smsWorker.nudge(),
    nudgePush: () => pushWorker.nudge(),
    legacyKeyConfigured: config.ingestApiKey !== null,
    live: live.events,
  });
  app.decorate("monitorChecker", monitorChecker);
  const services = {
    db: database.db,
    cache,
    config,
    logger,
    nudgeSms: () => smsWorker.nudge(),
    live: live.events,
    events: new DomainEventBus(),
  } satisfies ServiceContext;
  subscribeModules(services.events, services);
  app.decorate("services", services);
  const feedback = await openFeedbackRuntime(config, database.db, logger, live.events);
  app.decorate("feedback", feedback);
  app.addHook("onReady", async () => {
    smsWorker.start();
    pushWorker.start();
    ruleMatcher.start();
    wordBlockSealer?.start();
    upkeep.start();
    monitorChecker.start();
    if (feedback.ffmpeg.available) feedback.converter.start();
  });

  app.addHook("onClose", async () => {
    const step = async (name: string, stop: () => Promise<unknown> | undefined) => {
      lifecycle.closingStep = name;
      await stop();
    };
    await step("the feedback media worker", () => feedback.converter.stop());
    await step("the database upkeep", () => upkeep.stop());
    await step("the receiver and delivery checker", () => monitorChecker.stop());
    await step("the word-block sealer", () => wordBlockSealer?.stop());
    await step("the keyword-rule matcher", () => ruleMatcher.stop());
    await step("the push worker", () => pushWorker.stop());
    await step("the SMS worker", () => smsWorker.stop());
    if (!options.cache) await step("the cache store", () => cache.close());
    if (!options.database) await step("the database", () => database.close());
    lifecycle.closingStep = null;
  });

  // Keep-alive sockets would hold a graceful close open for the keep-alive timeout: once closing,
  // every response (in-flight ones included) asks the client to close its connection.
  const lifecycle = {
    instanceId: randomBytes(8).toString("hex"),
    closing: false,
    closingStep: null as string | null,
    inFlight: new Map<string, InFlightRequest>(),
  };
  app.decorate("lifecycle", lifecycle);
  app.addHook("preClose", async () => {
    lifecycle.closing = true;
    lifecycle.closingStep = "in-flight requests";
    // A client that neither reads its answer nor hangs up holds its connection open, and with it the
    // whole close: after IN_FLIGHT_GRACE_MS the connections still open are ended, so the workers and
    // the database still close cleanly (seen: a receiver that gave up on a batch while the embedded
    // database was being replaced after a full disk).
    const cutOff = setTimeout(() => {
      if (lifecycle.inFlight.size > 0)
        app.log.warn(
          { requests: describeInFlight(lifecycle.inFlight) },
          `requests still unanswered ${IN_FLIGHT_GRACE_MS / 1000} s into the shutdown: their connections are ended`,
        );
      app.server.closeAllConnections();
    }, IN_FLIGHT_GRACE_MS);
    cutOff.unref();
    app.server.once("close", () => clearTimeout(cutOff));
  });
  app.addHook("onSend", async (_request, reply) => {
    if (lifecycle.closing) reply.header("connection", "close");
  });
  app.addHook("onRequest", async (request, reply) => {
    lifecycle.inFlight.set(request.id, {
      method: request.method,
      url: request.url.split("?")[0]!,
      since: Date.now(),
    });
    // The response's close: sent, or its connection gone (onResponse misses a client that hung up).
    reply.raw.once("close", () => lifecycle.inFlight.delete(request.id));
  });

  const routeTable: RouteOptions[] = [];
  app.addHook("onRoute", (route) => {
    routeTable.push(route);
  });
  app.decorate("routeTable", routeTable);
  registerErrorHandling(app);
  // Before the sign-in check: a cross-site or form request is refused without a database lookup.
  registerApiRequestGuard(app);
  registerAuthGuard(app);
  registerInputGuard(app);
  await registerSecurityHeaders(app);
  await registerResponseCompression(app);
  registerMetrics(app);
  await app.register(healthRoutes, { prefix: "/api" });
  await app.register(readinessRoutes, { prefix: "/api" });
  await app.register(authRoutes, { prefix: "/api" });
  await app.register(sessionRoutes, { prefix: "/api" });
  await app.register(postcodeRoutes, { prefix: "/api" });
  await app.register(ingestRoutes, { prefix: "/api" });
  await app.register(alertRoutes, { prefix: "/api" });
  await app.register(respondingRoutes, { prefix: "/api" });
  await app.register(groupingRoutes, { prefix: "/api" });
  await app.register(agencyRoutes, { prefix: "/api" });
  await app.register(capcodeRoutes, { prefix: "/api" });
  await app.register(userFilterRoutes, { prefix: "/api" });
  await app.register(securityRoutes, { prefix: "/api" });
  await app.register(userAlertRoutes, { prefix: "/api" });
  await app.register(adminUserAlertRoutes, { prefix: "/api" });
  await app.register(smsAdminRoutes, { prefix: "/api" });
  await app.register(userRoutes, { prefix: "/api" });
  await app.register(unitRoutes, { prefix: "/api" });
  await app.register(systemRoutes, { prefix: "/api" });
  await app.register(autoActivationRoutes, { prefix: "/api" });
  await app.register(feedbackRoutes, { prefix: "/api" });
  await app.register(pushRoutes, { prefix: "/api" });
  await app.register(receiverRoutes, { prefix: "/api" });
  await app.register(mapRoutes, { prefix: "/api", readFeed: searchAlerts });
  await app.register(displayRoutes, { prefix: "/api" });
  await app.register(clientErrorRoutes, { prefix: "/api" });
  await app.register(feedbackMediaRoutes);
  await app.register(webRoutes);

  return app;
}
