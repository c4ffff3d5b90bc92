import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "e2e",
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**"],
    environment: "node",
    globalSetup: ["./support/global-setup.ts"],
    setupFiles: ["./support/csp-guard.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
