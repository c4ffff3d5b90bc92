import { defineConfig } from "drizzle-kit";

// Only `generate` is used: migrations run at start-up through drizzle-orm's migrator on our own client,
// which is the only way PGlite gets its extensions (see STACK-NOTES).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.ts",
  out: "./drizzle",
});
