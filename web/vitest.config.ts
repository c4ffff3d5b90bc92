import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [react()],
  test: {
    name: "web",
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/testing/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}", "build/**/*.test.ts"],
    restoreMocks: true,
    // The feed card's and the header's looks are static stylesheets: tests read their computed styles.
    css: { include: [/alert-card\.css$/, /dashboard\.css$/] },
    // Above the 10 s findBy/waitFor wait of src/testing/setup.ts, so that wait is what reports a miss.
    testTimeout: 15_000,
  },
});
