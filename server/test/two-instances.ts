import { buildApp } from "../src/app.js";
import { createLogger } from "../src/logger.js";
import { openTestCache, openTestDatabase, type TestApp, testConfig } from "./build-app.js";

/**
 * Two app instances on one test database and the same Redis (REDIS_URL, or `redisUrl`) rooms,
 * listening on free ports; `run` gets them and the base URL of each. Both are closed afterwards.
 */
export async function withTwoInstances(
  env: Record<string, string>,
  run: (a: TestApp, b: TestApp, urlOf: (x: TestApp) => string) => Promise<void>,
  { redisUrl = process.env.REDIS_URL! }: { redisUrl?: string } = {},
): Promise<void> {
  const database = await openTestDatabase();
  const config = testConfig({ ...env, REDIS_URL: redisUrl, REDIS_PREFIX: `tw-${Date.now()}:` });
  const cacheA = await openTestCache(redisUrl);
  const cacheB = await openTestCache(redisUrl);
  const a = await buildApp(config, { database, cache: cacheA, logger: createLogger("silent") });
  const b = await buildApp(config, { database, cache: cacheB, logger: createLogger("silent") });
  try {
    await a.listen({ port: 0, host: "127.0.0.1" });
    await b.listen({ port: 0, host: "127.0.0.1" });
    const urlOf = (x: TestApp) => {
      const ad = x.server.address();
      return `http://127.0.0.1:${typeof ad === "object" && ad ? ad.port : 0}`;
    };
    await run(a as TestApp, b as TestApp, urlOf);
  } finally {
    await a.close();
    await b.close();
    await cacheA.close();
    await cacheB.close();
    await database.close();
  }
}
