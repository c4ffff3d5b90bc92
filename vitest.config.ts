import { defineConfig } from "vitest/config";

const domainTests = { root: "domain", include: ["src/**/*.test.ts"] };

// Groups run one after another, each with its own number of test files at once (sequence.groupOrder):
// the unit projects and the server projects use both cores of a CI machine; the browser journeys run
// last, one file at a time, so a Chromium and its servers never compete with other tests for the CPU.
const parallel = (groupOrder: number) => ({ sequence: { groupOrder }, maxWorkers: 2 });

// Server tests run on PGlite always, and on PostgreSQL too when DATABASE_URL is set.
const serverOnPostgres = process.env.DATABASE_URL
  ? [
      {
        extends: "./server/vitest.config.ts",
        test: {
          name: "server-pg",
          root: "server",
          env: { TURNOUT_TEST_DB: "postgres" },
          ...parallel(1),
        },
      },
    ]
  : [];

export default defineConfig({
  test: {
    projects: [
      { test: { ...domainTests, name: "domain", environment: "node", ...parallel(0) } },
      { test: { ...domainTests, name: "domain-jsdom", environment: "jsdom", ...parallel(0) } },
      { extends: "./web/vitest.config.ts", test: { root: "web", ...parallel(0) } },
      { extends: "./server/vitest.config.ts", test: { root: "server", ...parallel(1) } },
      ...serverOnPostgres,
      {
        extends: "./e2e/vitest.config.ts",
        test: { root: "e2e", sequence: { groupOrder: 2 }, maxWorkers: 1 },
      },
    ],
  },
});
