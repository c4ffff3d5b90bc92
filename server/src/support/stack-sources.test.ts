import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildSync } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { sourceMappedStack } from "./stack-sources.js";

const dir = mkdtempSync(path.join(tmpdir(), "turnout-stack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle made as scripts/server-build.mjs makes the server's (ESM, linked map, no sources in it). */
function bundle(name: string, { map = true } = {}): { file: string; url: string; source: string } {
  const source = path.join(dir, "src", `${name}.ts`);
  mkdirSync(path.dirname(source), { recursive: true });
  writeFileSync(
    source,
    [
      "const padding: number = 1;",
      "export function explode(reason: string): never {",
      "  throw new Error(['boom:', reason, padding].join(' '));",
      "}",
      "explode('on import');",
      "",
    ].join("\n"),
  );
  const file = path.join(dir, "dist", `${name}.js`);
  buildSync({
    entryPoints: [source],
    outfile: file,
    bundle: true,
    format: "esm",
    platform: "node",
    sourcemap: map ? "linked" : false,
    sourcesContent: false,
    logLevel: "error",
  });
  return { file, url: pathToFileURL(file).href, source };
}

/** The stack V8 writes when the bundle throws, in a process of its own without Node's source maps. */
function stackOf(url: string): string {
  const script = `import(${JSON.stringify(url)}).catch((err) => process.stdout.write(err.stack));`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

describe("stack traces of the compiled server", () => {
  it("name the TypeScript source, line and column of each frame in the bundle", () => {
    const { url, file, source } = bundle("mapped");
    const stack = stackOf(url);
    expect(stack).toContain(`${url}:`);

    const mapped = sourceMappedStack(stack, url);
    // `throw` is on line 3 of the source, column 9 (`new Error`), in `explode`, called on line 5.
    expect(mapped).toContain(`at explode (${source}:3:9)`);
    expect(mapped).toContain(`${source}:5:1`);
    expect(mapped).not.toContain(file);
    expect(mapped.split("\n")[0]).toBe("Error: boom: on import 1");
  });

  it("leave a stack alone where the bundle has no map, and frames of other files as they are", () => {
    const { url } = bundle("unmapped", { map: false });
    const stack = stackOf(url);
    expect(sourceMappedStack(stack, url)).toBe(stack);

    const other = "Error: x\n    at run (file:///somewhere/else.js:10:4)\n    at node:internal/x:1:1";
    expect(sourceMappedStack(other, bundle("mapped-again").url)).toBe(other);
  });
});
