import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { DestinationStream } from "pino";
import { buildApp } from "../src/app.js";
import { type Cache, openCache } from "../src/cache/cache.js";
import { type Config, loadConfig } from "../src/config.js";
import { type DatabaseHandle, dumpMemoryDatabase, openDatabase } from "../src/db/client.js";
import { securityConfig } from "../src/db/schema.js";
import { createLogger } from "../src/logger.js";
import { createScratchDatabase } from "./scratch-database.js";

/** Which engine server tests run on: set per Vitest project (see server/vitest.config.ts). */
export const testEngine: "pglite" | "postgres" =
  process.env.TURNOUT_TEST_DB === "postgres" ? "postgres" : "pglite";

/**
 * A freshly migrated in-memory PGlite's data directory, made by this process's first PGlite test
 * database: later ones start from a copy of it instead of PGlite's initdb (~3 s each). Test files share
 * a worker process (isolate: false in vitest.config.ts), so one image serves many files.
 */
let pgliteImage: Promise<Blob> | undefined;

async function openTestPglite(): Promise<DatabaseHandle> {
  if (pgliteImage)
    return openDatabase({ databaseUrl: null, pgliteDir: "memory://", pgliteImage: await pgliteImage });
  const first = openDatabase({ databaseUrl: null, pgliteDir: "memory://" });
  pgliteImage = first.then(dumpMemoryDatabase);
  pgliteImage.catch(() => (pgliteImage = undefined)); // a failed first open is not kept for the next
  await pgliteImage.catch(() => {});
  return first;
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or a new PostgreSQL database
 * (created on the server named by DATABASE_URL and dropped on close) so files never share rows.
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  if (testEngine === "pglite") return openTestPglite();
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error("TURNOUT_TEST_DB=postgres needs DATABASE_URL");
  const scratch = await createScratchDatabase(baseUrl);
  const handle = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await scratch.drop();
    },
  };
}

/** The cache store tests use: the real Redis (REDIS_URL, or `url`) under a private key prefix when set. */
export function openTestCache(url = process.env.REDIS_URL): Promise<Cache> {
  const prefix = `turnout-test:${randomBytes(6).toString("hex")}:`;
  return openCache(url || null, prefix);
}

/** A validated Config for tests, rooted in a temporary DATA_DIR. */
export function testConfig(env: Record<string, string> = {}): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-test-"));
  return loadConfig({
    DATA_DIR: dataDir,
    JWT_SECRET: "test-secret-test-secret-test-secret-42",
    LOG_LEVEL: "silent",
    // The receiver and delivery checker (issue 33) checks once at start; its tests call it themselves.
    MONITOR_CHECK_SECONDS: "3600",
    ...env,
  });
}

export type TestApp = Awaited<ReturnType<typeof buildApp>> & { cleanup: () => Promise<void> };

/**
 * The SMS budgets and proof-of-work thresholds (issue 27) are sized for a real service's hour; a test
 * file sends more codes than that from one address in seconds. buildTestApp lifts them out of the way
 * unless asked not to (`abuseLimits: "defaults"`); the tests of those limits set their own values.
 */
export const RELAXED_ABUSE_LIMITS: Record<string, number> = {
  sms_budget_per_hour: 1_000_000,
  sms_budget_per_day: 10_000_000,
  sms_unauth_budget_per_hour: 100_000,
  sms_unauth_budget_per_day: 1_000_000,
  sms_prefix_budget_per_hour: 100_000,
  sms_phone_budget_per_day: 1_000,
  pow_phone_requests: 10_000,
  pow_phone_failures: 10_000,
  pow_service_unauth_sms_per_hour: 1_000_000,
  pow_service_failures_per_window: 1_000_000,
  // A test's proof of work takes a few hashes, not a phone's second or two.
  pow_cost: 10,
  pow_max_tries: 20,
};

/** Sets security settings (rows of security_config) as an admin's PUT would, in one statement. */
export async function setSecuritySettings(app: Pick<TestApp, "db">, values: Record<string, number>) {
  const rows = Object.entries(values).map(([key, value]) => sql`(${key}, ${String(value)})`);
  if (rows.length === 0) return;
  await app.db.execute(
    sql`UPDATE ${securityConfig} SET value = v.value FROM (VALUES ${sql.join(rows, sql`, `)}) AS v(key, value)
        WHERE ${securityConfig.key} = v.key`,
  );
}

/** Starts `app` listening on a free local port; its base URL, for real sockets and HTTP clients. */
export async function listenLocally(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

/** Builds the real app on a fresh database and cache; `cleanup` closes it and removes its data. */
export async function buildTestApp(
  env: Record<string, string> = {},
  options: { logStream?: DestinationStream; abuseLimits?: "relaxed" | "defaults" } = {},
): Promise<TestApp> {
  const config = testConfig(env);
  const database = await openTestDatabase();
  const cache = await openTestCache();
  const app = await buildApp(config, {
    database,
    cache,
    logger: createLogger(config.logLevel, options.logStream),
  });
  if (options.abuseLimits !== "defaults") await setSecuritySettings(app, RELAXED_ABUSE_LIMITS);
  return Object.assign(app, {
    cleanup: async () => {
      await app.close();
      await cache.close();
      await database.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  });
}
