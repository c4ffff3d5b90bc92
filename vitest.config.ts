import { defineConfig } from "vitest/config";

const domainTests = { root: "domain", include: ["src/**/*.test.ts"] };

// Server tests run on PGlite always, and on PostgreSQL too when DATABASE_URL is set.
const serverOnPostgres = process.env.DATABASE_URL
  ? [
      {
        extends: "./server/vitest.config.ts",
        test: { name: "server-pg", root: "server", env: { TURNOUT_TEST_DB: "postgres" } },
      },
    ]
  : [];

export default defineConfig({
  test: {
    projects: [
      { test: { ...domainTests, name: "domain", environment: "node" } },
      { test: { ...domainTests, name: "domain-jsdom", environment: "jsdom" } },
      "./server/vitest.config.ts",
      ...serverOnPostgres,
      "./web/vitest.config.ts",
      "./e2e/vitest.config.ts",
    ],
  },
});
