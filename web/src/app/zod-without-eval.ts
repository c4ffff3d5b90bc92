import type { $ZodConfig } from "zod/v4/core";

// Zod compiles its object parsers with `new Function` once a probe shows eval is allowed. The server's
// Content-Security-Policy refuses eval, and Chromium reports the refused probe as a violation although
// zod catches it; `jitless` skips the probe (interpreted parsers are fast enough for forms). It is set
// on zod's shared config object rather than through `z.config`, so this module runs before any schema
// is built without pulling zod into the first download.
const scope = globalThis as { __zod_globalConfig?: $ZodConfig };
scope.__zod_globalConfig = { ...scope.__zod_globalConfig, jitless: true };
