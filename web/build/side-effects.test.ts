import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// package.json's `sideEffects` tells the bundler which of our modules do something when imported.
// A module imported only for what it does (`import "./setup";`) and missing from that list is dropped
// from the build without a word, while tests, which do not tree-shake, still pass: zod's English
// messages for the forms were lost this way once.

const webRoot = path.resolve(import.meta.dirname, "..");
const declared: string[] = JSON.parse(readFileSync(path.join(webRoot, "package.json"), "utf8")).sideEffects;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "testing" ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Our own script modules that a source imports for their effect alone, as `./src/...` paths. */
function effectImports(): { importer: string; module: string }[] {
  return sources(path.join(webRoot, "src")).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^import\s+["'](\.{1,2}\/[^"']+)["'];?$/gm)].flatMap((match) => {
      const base = path.resolve(path.dirname(file), match[1] as string);
      const found = ["", ".ts", ".tsx"]
        .map((ext) => base + ext)
        .find((p) => /\.tsx?$/.test(p) && existsSync(p));
      if (!found) return []; // a stylesheet: the bundler keeps those itself
      return [{ importer: path.relative(webRoot, file), module: `./${path.relative(webRoot, found)}` }];
    }),
  );
}

describe("modules imported for their effect", () => {
  it("finds the ones the app has (the scan works)", () => {
    expect(effectImports().map((i) => i.module)).toContain("./src/app/zod-without-eval.ts");
  });

  it("are each declared in package.json's sideEffects, so the build keeps them", () => {
    const missing = effectImports().filter((i) => !declared.includes(i.module));
    expect(missing).toEqual([]);
  });

  it("declares only modules that exist", () => {
    expect(declared.filter((entry) => !existsSync(path.join(webRoot, entry)))).toEqual([]);
  });
});
