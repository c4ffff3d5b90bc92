import { defineConfig } from "vitest/config";

// Domain rules are pure, so they must hold in both runtimes the code ships to.
export default defineConfig({
  test: {
    projects: [
      { test: { name: "domain", include: ["src/**/*.test.ts"], environment: "node" } },
      { test: { name: "domain-jsdom", include: ["src/**/*.test.ts"], environment: "jsdom" } },
    ],
  },
});
