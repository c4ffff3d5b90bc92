import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { MAX_INT_ID, queryIntSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { monitorHealthInputs } from "../../shared/monitor-health.js";
import { smsBudgetsReached } from "../../shared/security/sms-budget.js";
import { createSmsCheckCache, smsServiceStatus } from "../../sms/status.js";
import { SYSTEM_LOG_LEVELS } from "../../system-log.js";
import { foldMessageCounts, messageMetrics } from "./message-metrics.js";
import {
  applicationMetrics,
  CpuSampler,
  createAppFacts,
  databaseMetrics,
  redisMetrics,
  systemMetrics,
} from "./metrics.js";
import { presentAdminSession, presentLogEntry } from "./present.js";
import {
  clearSystemLogs,
  listAllActiveSessions,
  listSystemLogs,
  monitorHealth,
  sessionMetrics,
} from "./service.js";

/** The monitor shows the first 50 log entries (SPEC 9). */
const LOG_PAGE = 50;

const logsQuery = z.object({
  limit: queryIntSchema("limit", 1, 500).default(LOG_PAGE),
  offset: queryIntSchema("offset", 0, MAX_INT_ID).default(0),
  level: z.enum(SYSTEM_LOG_LEVELS, `level must be one of ${SYSTEM_LOG_LEVELS.join(", ")}`).optional(),
});

/** Folds message count changes between monitor reads too, so they never pile up unread. */
const FOLD_EVERY_MS = 5 * 60_000;

/** SPEC 7 'Admin: sessions and system': the System Monitor's figures, the system log, every session. */
export async function systemRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const cpu = new CpuSampler();
  const facts = createAppFacts();
  const smsCheck = createSmsCheckCache(app.sms);
  let folder: NodeJS.Timeout | undefined;
  app.addHook("onReady", async () => {
    cpu.start();
    folder = setInterval(() => {
      foldMessageCounts(app.db).catch((err) => app.log.warn({ err }, "folding message counts failed"));
    }, FOLD_EVERY_MS);
    folder.unref();
  });
  app.addHook("onClose", async () => {
    cpu.stop();
    clearInterval(folder);
  });

  const listeningPort = () => {
    const address = app.server.address();
    return address && typeof address === "object" ? address.port : null;
  };
  const metrics = async () => {
    const [system, application, database, redis] = await Promise.all([
      systemMetrics(cpu),
      applicationMetrics(app.config, facts, listeningPort()),
      databaseMetrics(app.db, app.dbKind),
      redisMetrics(app.cache),
    ]);
    return { system, application, database, redis };
  };
  const logs = async (query: z.infer<typeof logsQuery>) => {
    const { rows, total } = await listSystemLogs(app.db, query);
    return { data: rows.map(presentLogEntry), total };
  };

  r.get("/admin/sessions", async () => {
    const rows = await listAllActiveSessions(app.db);
    return { success: true, data: rows.map(presentAdminSession) };
  });

  r.get("/admin/sessions/stats", async () => ({ success: true, data: await sessionMetrics(app.db) }));

  r.get("/admin/system/sessions", async () => ({ success: true, data: await sessionMetrics(app.db) }));

  r.get("/admin/system/metrics", async () => ({ success: true, data: await metrics() }));

  r.get("/admin/system/messages", async () => ({ success: true, data: await messageMetrics(app.db) }));

  r.get("/admin/system/logs", { schema: { querystring: logsQuery } }, async (request) => ({
    success: true,
    ...(await logs(request.query)),
  }));

  r.post("/admin/system/logs/clear", async (request) => {
    const cleared = await clearSystemLogs(app.db, actorOf(request), request.ip);
    return { success: true, message: `${cleared} log entries cleared.`, data: { cleared } };
  });

  r.get("/admin/system/dashboard", async () => {
    const [m, sessions, messages, sms, firstLogs, mediaQueue, receiversHealth] = await Promise.all([
      metrics(),
      sessionMetrics(app.db),
      messageMetrics(app.db),
      smsServiceStatus(app.db, app.sms, smsCheck),
      logs({ limit: LOG_PAGE, offset: 0 }),
      app.feedback.converter.state(),
      monitorHealthInputs(app.db, app.config.monitor),
    ]);
    return {
      success: true,
      data: {
        health: monitorHealth(m, app.config.appEnv, {
          videoConversionUnavailable: !app.feedback.ffmpeg.available,
          smsBudgetsReached: await smsBudgetsReached(app.cache).catch(() => []),
          ...receiversHealth,
        }),
        metrics: m,
        sessions,
        messages,
        sms,
        logs: firstLogs,
        // Feedback videos waiting for ffmpeg (issue 28): posters and conversions, all instances.
        media_queue: {
          available: app.feedback.ffmpeg.available,
          concurrency: app.config.media.concurrency,
          ffmpeg_threads: app.config.media.ffmpegThreads,
          ...mediaQueue,
        },
      },
    };
  });
}
