import { createHash } from "node:crypto";
import { CLIENT_ERROR_REPORTS_PER_MINUTE, clientErrorReportSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { rateLimited } from "../../errors.js";
import { optionalActor } from "../../shared/guard.js";
import { writeSystemLog } from "../../system-log.js";

/**
 * Entries the reports may add to the system log per hour, from every address together: many addresses
 * cannot fill the log (and the disk), and one broken release seen by every member is a few entries.
 * Signed-in people's reports and anonymous ones have a budget each, so strangers cannot use up the
 * members' (nor, by sending an error first, keep a member's from being written).
 */
export const CLIENT_ERROR_ENTRIES_PER_HOUR = 100;
/** A report is a few kilobytes at most (domain limits); nothing larger is read. */
const REPORT_BODY_LIMIT_BYTES = 16 * 1024;
const HOUR_SECONDS = 3_600;

/**
 * POST /api/client-errors: an error in someone's app (a screen that failed to render, an uncaught
 * error), written to the system log as a `web` error so that an admin sees it. Public: the login
 * screen can fail too; the app sends its session when it has one, and the entry names the user
 * (`details.user_id`; only these reach the health card, which a stranger must not be able to raise).
 * Each distinct error (message and release) is written once an hour; phone numbers in it are masked
 * like every log entry's. Throttled per address; the log gets at most CLIENT_ERROR_ENTRIES_PER_HOUR
 * entries an hour from signed-in people and as many from others, and says so once when more were dropped.
 */
export async function clientErrorRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // A cache outage must not hide errors: every count here is kept in this process meanwhile.
  const count = (key: string, seconds: number) =>
    app.cache.increment(`client-errors:${key}`, seconds, { whenDown: "count-locally" });

  r.post(
    "/client-errors",
    {
      config: { access: "public" },
      bodyLimit: REPORT_BODY_LIMIT_BYTES,
      onRequest: async (request) => {
        const { count: n, ttlSeconds } = await count(`ip:${request.ip}`, 60);
        if (n > CLIENT_ERROR_REPORTS_PER_MINUTE)
          throw rateLimited("Too many error reports. Please wait a minute.", ttlSeconds);
      },
      schema: { body: clientErrorReportSchema },
    },
    async (request, reply) => {
      const { kind, message, stack, path, release } = request.body;
      const onError = (err: unknown) =>
        request.log.error({ err }, "client error report not written to the system log");
      // A report with no valid session is still taken, as anonymous.
      const userId = (await optionalActor(app, request))?.userId ?? null;
      const from = userId === null ? "anonymous" : "signed-in";
      const fingerprint = createHash("sha256").update(`${release}\n${message}`).digest("hex").slice(0, 32);
      if ((await count(`seen:${from}:${fingerprint}`, HOUR_SECONDS)).count > 1) return reply.code(204).send();
      const written = (await count(`written:${from}`, HOUR_SECONDS)).count;
      if (written <= CLIENT_ERROR_ENTRIES_PER_HOUR) {
        await writeSystemLog(
          app.db,
          {
            level: "error",
            category: "web",
            message: `App error (${kind.replace("_", " ")}) on ${path}: ${message}`,
            details: {
              kind,
              path,
              release,
              stack: stack ?? null,
              user_agent: request.headers["user-agent"] ?? null,
              user_id: userId,
            },
            ip: request.ip,
          },
          onError,
        );
      } else if (written === CLIENT_ERROR_ENTRIES_PER_HOUR + 1) {
        await writeSystemLog(
          app.db,
          {
            level: "warn",
            category: "web",
            message: `More than ${CLIENT_ERROR_ENTRIES_PER_HOUR} different app errors reported this hour by ${from === "anonymous" ? "people not signed in" : "signed-in people"}; the rest of the hour's are not logged`,
            ip: request.ip,
          },
          onError,
        );
      }
      return reply.code(204).send();
    },
  );
}
