import path from "node:path";
import type { Plugin } from "vite";

/**
 * What counts as test code in a bundle: anything under a `testing/` folder of the app's own source
 * (the test doubles and fixtures: web/src/testing), a `*.test.*` file, a `__mocks__` folder, and the
 * test libraries themselves.
 */
export function isTestCode(moduleId: string): boolean {
  const id = moduleId.replaceAll("\\", "/").replace(/^\0/, "");
  if (/\/node_modules\/(@testing-library|vitest|@vitest|jsdom)\//.test(id)) return true;
  if (id.includes("/node_modules/")) return false;
  return /\/testing\/|\/__mocks__\/|\.test\.[cm]?[jt]sx?$/.test(id);
}

/**
 * Fails the production build when any chunk holds test code (issue 30: test doubles live beside the
 * tests, never in what is shipped). It names each offending module and the chunk that holds it.
 */
export function noTestCode(): Plugin {
  let root = process.cwd();
  return {
    name: "turnout-no-test-code",
    apply: "build",
    configResolved(config) {
      root = config.root;
    },
    generateBundle(_options, bundle) {
      const found: string[] = [];
      for (const output of Object.values(bundle)) {
        if (output.type !== "chunk") continue;
        for (const id of Object.keys(output.modules)) {
          if (isTestCode(id)) found.push(`${output.fileName}: ${path.relative(root, id.replace(/^\0/, ""))}`);
        }
      }
      if (found.length > 0) {
        this.error(
          `The production bundle contains test code (move the import out of the app's source):\n  ${found.join("\n  ")}`,
        );
      }
    },
  };
}
