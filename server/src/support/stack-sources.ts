import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * The server's stack traces as they are written in TypeScript (`server/src/app.ts:42:7`), from the
 * compiled bundle's source map, read when the first stack of the bundle is logged. Node's
 * `--enable-source-maps` did the same but read and kept, for the life of the process, the map of every
 * dependency that ships one as well (263 files, 2.4 MB, about 4 MB of an idle server's 90: issue 32).
 * Frames of other files, and stacks when Node already maps them, are left as they are.
 */
export function sourceMappedStack(stack: string, bundle = import.meta.url): string {
  if (process.sourceMapsEnabled || !bundle.endsWith(".js")) return stack;
  const frame = framesOf(bundle);
  return stack.replace(frame, (whole, line: string, column: string) => {
    const map = mapOf(bundle);
    if (!map) return whole;
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1);
    if (!("originalSource" in entry) || !entry.originalSource) return whole;
    const source = new URL(entry.originalSource, bundle);
    const file = source.protocol === "file:" ? fileURLToPath(source) : entry.originalSource;
    return `${file}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}

/** A bundle's map (its `.map` beside it), or null where it has none: read once per bundle. */
const maps = new Map<string, SourceMap | null>();
function mapOf(bundle: string): SourceMap | null {
  if (!maps.has(bundle)) {
    try {
      const payload = JSON.parse(readFileSync(new URL(`${bundle}.map`), "utf8")) as SourceMapPayload;
      maps.set(bundle, new SourceMap(payload));
    } catch {
      maps.set(bundle, null);
    }
  }
  return maps.get(bundle) ?? null;
}

/** `file:///…/main.js:12:34` and `/…/main.js:12:34`, as V8 writes a frame of the bundle. */
function framesOf(bundle: string): RegExp {
  const url = new URL(bundle);
  const names = [url.href, url.protocol === "file:" ? fileURLToPath(url) : url.href].map((n) =>
    n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
  );
  return new RegExp(`(?:${names.join("|")}):(\\d+):(\\d+)`, "g");
}
