import path from "node:path";
import { buildApp, describeInFlight } from "./app.js";
import { loadConfig } from "./config.js";
import { describeStartFailure } from "./db/storage.js";
import { createLogger } from "./logger.js";
import { addressLocalities, keepLocalitiesIn } from "./shared/localities/address-localities.js";
import { ensurePostcodesSeeded } from "./shared/localities/postcodes-seed.js";

const SHUTDOWN_GRACE_MS = 10_000;
/** The localities read from the bundled data, kept in DATA_DIR for the next start. */
const LOCALITY_CACHE_FILE = "localities-cache.json";

/**
 * Node ends the process on a promise rejection nobody handled. Every one of the server's own is
 * handled where it starts (Redis commands: cache/redis-link.ts); one a library leaves unhandled must
 * not take a pager service down with it, so it is logged (at most 10 a minute) and the server goes on.
 */
function keepServingOnUnhandledRejections(logger: ReturnType<typeof createLogger>): void {
  let windowStart = 0;
  let inWindow = 0;
  process.on("unhandledRejection", (reason) => {
    const now = Date.now();
    if (now - windowStart > 60_000) {
      if (inWindow > 10)
        logger.error({ suppressed: inWindow - 10 }, "unhandled promise rejections not logged");
      windowStart = now;
      inWindow = 0;
    }
    if (++inWindow <= 10) logger.error({ err: reason }, "unhandled promise rejection; the server goes on");
  });
}

/**
 * Connections the kernel holds for the server until it accepts them (Node's default is 511). A busy
 * server accepts one new connection per event-loop iteration (libuv 1.45+), so when a thousand screens
 * reconnect at once (an instance restarted, nginx opening connections to it) the queue fills; past it
 * the kernel drops the connection attempt and the client tries again only after 1, 3, 7 s, long enough
 * for a ping to time out or nginx to answer 504. Linux caps it at net.core.somaxconn (4096 by default).
 */
const LISTEN_BACKLOG = 4096;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  keepServingOnUnhandledRejections(logger);
  keepLocalitiesIn(path.join(config.dataDir, LOCALITY_CACHE_FILE), (err) =>
    logger.warn({ err }, "the locality cache could not be used; reading the bundled data instead"),
  );
  // Before the first message arrives: reading the locality data takes a few hundred milliseconds on a
  // first start (more on a busy machine; tens after, from the cache), done while the database opens on
  // its own thread (a start after a crash is that much sooner back; bench/README.md, "The embedded
  // database on small disks").
  const app = await buildApp(config, { logger, whileDatabaseOpens: () => addressLocalities() });
  await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
  logger.info(
    { database: app.dbKind, cache: app.cache.kind, env: config.appEnv },
    `Turnout is listening on http://${config.host}:${config.port}`,
  );
  // Seed the postcode table now rather than on the first sign-up's location search.
  ensurePostcodesSeeded(app.db, logger).catch((err: unknown) =>
    logger.error({ err }, "postcode seeding failed"),
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => {
      logger.error(
        {
          waitingOn: app.lifecycle.closingStep,
          inFlight: describeInFlight(app.lifecycle.inFlight),
        },
        `shutting down took over ${SHUTDOWN_GRACE_MS / 1000} s (waiting on ${app.lifecycle.closingStep ?? "nothing known"}); exiting`,
      );
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      await app.close();
      logger.info("stopped cleanly");
      process.exit(0);
    } catch (err) {
      logger.error({ err }, "error while shutting down");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  process.stderr.write(`Turnout failed to start: ${describeStartFailure(err)}\n`);
  process.exit(1);
});
