// The server's layering (README, Architecture), checked by `npm test` (scripts/check-deps.mjs):
//   domain/  <  the shell (errors, config, db, cache, support, live events, sms, push, ...)
//            <  server/src/shared (read models and guards several modules use)
//            <  server/src/modules/<name> (each imports only domain, the shell, shared and its own files)
//            <  the assembly (app.ts, main.ts, admin-cli.ts, address-cli.ts, live/gateway.ts), which wires modules together
//               and subscribes them to each other's domain events (server/src/events.ts).
// Tests (server/test, *.test.ts) may reach across: they drive the app from outside.
//
// The web's layering (STYLE: app -> features -> api, ui): a feature in web/src/features/<name> never
// imports another; what several use lives in web/src/api (calls, schemas) or web/src/ui (presentational
// pieces), or the app (web/src/app) composes one feature's component into another through props and slots.
// Tests and the web's test helpers (web/src/testing) may reach across.
const tests = "(^server/test/|\\.test\\.ts$|^server/src/testing/)";
const webTests = "(\\.test\\.tsx?$|^web/src/testing/)";
const assembly =
  "^server/src/(app|main|admin-cli|address-cli|web|subscriptions)\\.ts$|^server/src/live/gateway\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "module-imports-another-module",
      comment:
        "A module imports only domain/, the shell, server/src/shared and its own files. Effects in another " +
        "module go through a domain event (server/src/events.ts) that app.ts subscribes; read models several " +
        "modules need move to server/src/shared.",
      severity: "error",
      from: { path: "^server/src/modules/([^/]+)/", pathNot: tests },
      to: { path: "^server/src/modules/", pathNot: "^server/src/modules/$1/" },
    },
    {
      name: "shell-imports-a-module",
      comment: "The shell and the shared read models sit below the modules: they never import one.",
      severity: "error",
      from: { path: "^server/src/", pathNot: [`^server/src/modules/`, assembly, tests] },
      to: { path: "^server/src/modules/" },
    },
    {
      name: "shell-imports-the-assembly",
      comment:
        "Nothing below the assembly imports it (the live gateway's event types are in live/live-events.ts).",
      severity: "error",
      from: { path: "^server/src/", pathNot: [assembly, tests] },
      to: { path: assembly },
    },
    {
      name: "production-imports-a-test-double",
      comment: "Test doubles live in server/src/testing and are never part of the production server.",
      severity: "error",
      from: { path: "^server/src/", pathNot: tests },
      to: { path: "^server/src/testing/" },
    },
    {
      name: "no-circular-modules",
      comment: "Modules form no cycle.",
      severity: "error",
      from: { path: "^server/src/modules/", pathNot: tests },
      to: { circular: true, path: "^server/src/modules/", pathNot: tests },
    },
    {
      name: "web-feature-imports-another-feature",
      comment:
        "A web feature imports only web/src/api, web/src/ui, domain and its own files. Move what several " +
        "features use to api/ or ui/, or let web/src/app pass one feature's component into another.",
      severity: "error",
      from: { path: "^web/src/features/([^/]+)/", pathNot: webTests },
      to: { path: "^web/src/features/", pathNot: "^web/src/features/$1/" },
    },
    {
      name: "web-api-or-ui-imports-a-feature",
      comment: "web/src/api and web/src/ui sit below the features: they never import one.",
      severity: "error",
      from: { path: "^web/src/(api|ui)/", pathNot: webTests },
      to: { path: "^web/src/features/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,
  },
};
