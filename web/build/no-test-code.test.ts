import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "vite";
import { afterEach, describe, expect, it } from "vitest";
import { isTestCode, noTestCode } from "./no-test-code";

/** A one-page app in a temporary folder, built by Vite with the plugin, as `npm run build` does. */
async function buildApp(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "turnout-no-test-code-"));
  roots.push(root);
  const all: Record<string, string> = {
    "index.html": '<!doctype html><script type="module" src="/src/main.ts"></script>',
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  await build({
    root,
    configFile: false,
    logLevel: "silent",
    plugins: [noTestCode()],
    build: { outDir: path.join(root, "dist"), write: false },
  });
  return root;
}

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("the production build's check for test code", () => {
  it("passes an app that imports no test code", async () => {
    await expect(
      buildApp({
        "src/main.ts": 'import { greet } from "./greet";\ndocument.title = greet();\n',
        "src/greet.ts": 'export const greet = () => "Turnout";\n',
      }),
    ).resolves.toBeTruthy();
  });

  it("fails naming the module when the app imports a test double from a testing folder", async () => {
    await expect(
      buildApp({
        "src/main.ts":
          'import { fakeAudio } from "./testing/fake-audio";\ndocument.title = String(fakeAudio());\n',
        "src/testing/fake-audio.ts": "export const fakeAudio = () => 42;\n",
      }),
    ).rejects.toThrow(/test code[\s\S]*src\/testing\/fake-audio\.ts/);
  });

  it("fails when code of a test file is bundled", async () => {
    await expect(
      buildApp({
        "src/main.ts": 'import { value } from "./thing.test";\ndocument.title = String(value);\n',
        // Code that survives tree shaking: a module the bundle drops entirely ships nothing.
        "src/thing.test.ts": "export const value = Math.random();\n",
      }),
    ).rejects.toThrow(/src\/thing\.test\.ts/);
  });

  it("tells test code from app code and libraries", () => {
    expect(isTestCode("/repo/web/src/testing/mock-api.ts")).toBe(true);
    expect(isTestCode("/repo/web/src/testing/admin/admin-fixtures.ts")).toBe(true);
    expect(isTestCode("/repo/web/src/features/alarm/alarm.test.tsx")).toBe(true);
    expect(isTestCode("/repo/node_modules/@testing-library/react/dist/index.js")).toBe(true);
    expect(isTestCode("/repo/web/src/features/admin/data-view/data-table.tsx")).toBe(false);
    expect(isTestCode("/repo/node_modules/some-lib/testing/helpers.js")).toBe(false);
  });
});
