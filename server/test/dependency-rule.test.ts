import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The dependency rule (.dependency-cruiser.cjs, run by `npm test` through scripts/check-deps.mjs) must
// fail on the imports it forbids: here it cruises a small tree laid out like the server, with one
// import of each kind, and must name each forbidden one by its rule and let the allowed ones pass.

const root = path.resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(path.join(tmpdir(), "turnout-deps-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
  writeFileSync(path.join(scratch, file), text);
}

type Violation = { from: string; to: string; rule: { name: string } };

function cruise(tree = "server/src"): Violation[] {
  const run = spawnSync(
    path.join(root, "node_modules/.bin/depcruise"),
    [tree, "--config", path.join(root, ".dependency-cruiser.cjs"), "--output-type", "json"],
    { cwd: scratch, encoding: "utf8" },
  );
  expect(run.stdout, run.stderr).toContain('"summary"');
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe("the dependency rule", () => {
  it("names a module importing another module's service, the shell importing a module, and production code importing a test double", () => {
    write("server/src/errors.ts", "export const shell = 1;\n");
    write(
      "server/src/shared/guard.ts",
      'import { shell } from "../errors.js";\nexport const guard = shell;\n',
    );
    write("server/src/testing/stand-in.ts", "export const standIn = 1;\n");
    write(
      "server/src/modules/users/service.ts",
      'import { guard } from "../../shared/guard.js";\nimport { own } from "./present.js";\nexport const users = guard + own;\n',
    );
    write("server/src/modules/users/present.ts", "export const own = 1;\n");
    // Forbidden: another module's service, the shell reaching up, a stand-in in production code.
    write(
      "server/src/modules/feedback/service.ts",
      'import { users } from "../users/service.js";\nexport const feedback = users;\n',
    );
    write(
      "server/src/db/seed.ts",
      'import { users } from "../modules/users/service.js";\nexport const seed = users;\n',
    );
    write(
      "server/src/sms/select.ts",
      'import { standIn } from "../testing/stand-in.js";\nexport const sms = standIn;\n',
    );
    // Allowed: the assembly wires modules together, and tests reach wherever they need.
    write(
      "server/src/app.ts",
      'import { feedback } from "./modules/feedback/service.js";\nimport { users } from "./modules/users/service.js";\nexport const app = feedback + users;\n',
    );
    write(
      "server/src/modules/feedback/feedback.test.ts",
      'import { users } from "../users/service.js";\nimport { standIn } from "../../testing/stand-in.js";\nexport const t = users + standIn;\n',
    );

    const found = cruise().map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found.sort()).toEqual(
      [
        "module-imports-another-module: server/src/modules/feedback/service.ts -> server/src/modules/users/service.ts",
        "shell-imports-a-module: server/src/db/seed.ts -> server/src/modules/users/service.ts",
        "production-imports-a-test-double: server/src/sms/select.ts -> server/src/testing/stand-in.ts",
      ].sort(),
    );
  });
});

describe("the web's dependency rule", () => {
  it("names a feature importing another feature and ui/ importing a feature, and lets the app, api/ui and tests through", () => {
    write("web/src/api/alerts.ts", "export const alertSchema = 1;\n");
    write("web/src/ui/use-now.ts", "export const useNow = 1;\n");
    write(
      "web/src/features/alerts/alert-card.tsx",
      'import { alertSchema } from "../../api/alerts";\nimport { useNow } from "../../ui/use-now";\nimport { own } from "./feed-items";\nexport const AlertCard = alertSchema + useNow + own;\n',
    );
    write("web/src/features/alerts/feed-items.ts", "export const own = 1;\n");
    // Forbidden: one feature reaching into another, and ui/ reaching up into a feature.
    write(
      "web/src/features/map/map-view.tsx",
      'import { AlertCard } from "../alerts/alert-card";\nexport const MapView = AlertCard;\n',
    );
    write(
      "web/src/ui/job-map.tsx",
      'import { AlertCard } from "../features/alerts/alert-card";\nexport const JobMap = AlertCard;\n',
    );
    // Allowed: the app composes features, and tests and the test helpers reach wherever they need.
    write(
      "web/src/app/map-page.tsx",
      'import { AlertCard } from "../features/alerts/alert-card";\nimport { MapView } from "../features/map/map-view";\nexport const MapPage = AlertCard + MapView;\n',
    );
    write(
      "web/src/features/map/map-view.test.tsx",
      'import { AlertCard } from "../alerts/alert-card";\nexport const t = AlertCard;\n',
    );
    write(
      "web/src/testing/fixtures.ts",
      'import { AlertCard } from "../features/alerts/alert-card";\nexport const f = AlertCard;\n',
    );

    const found = cruise("web/src").map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found.sort()).toEqual(
      [
        "web-feature-imports-another-feature: web/src/features/map/map-view.tsx -> web/src/features/alerts/alert-card.tsx",
        "web-api-or-ui-imports-a-feature: web/src/ui/job-map.tsx -> web/src/features/alerts/alert-card.tsx",
      ].sort(),
    );
  });
});

describe("the server build", () => {
  it("finds a test double among a bundle's inputs, and none in a bundle of production files", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { testDoublesIn } from "./scripts/server-build.mjs";
         process.stdout.write(JSON.stringify([
           testDoublesIn(["server/src/main.ts", "server/src/testing/push-stand-in.ts"]),
           testDoublesIn(["server/src/main.ts", "server/src/push/queue.ts"]),
         ]));`,
      ],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(run.stdout)).toEqual([["server/src/testing/push-stand-in.ts"], []]);
  });
});
