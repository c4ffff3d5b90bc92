/**
 * The grouping workload (issue 28): admins' job-number patterns applied to pager traffic, the way
 * ingest applies them (each page through the active patterns in order until one matches), on each
 * linear-time regular-expression engine that needs no compiler, beside the native `re2` addon the
 * server used before and V8's own RegExp (backtracking, for scale only).
 *
 *   npx tsx bench/server/grouping.ts [--candidates DIR] [--messages 20000]
 *
 * re2js is the server's engine and always measured (as the server runs it: compilePattern, whose size
 * caps refuse two of the heavy patterns before they run). Other engines are measured when installed in
 * DIR (`npm install --prefix DIR re2 re2-wasm @adguard/re2-wasm`), so the project itself never
 * depends on them.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";
import { RE2JS } from "re2js";
import { compilePattern } from "../../server/src/shared/grouping.js";
import { pagerMessage, seededRandom, victorianVocabulary } from "../rules/vic-pager.js";
import { machineLine } from "../support/machine.js";

const { values } = parseArgs({
  options: { candidates: { type: "string" }, messages: { type: "string", default: "20000" } },
});
const count = Number(values.messages);

/** What an engine offers: compile a case-insensitive pattern, then the first capture (or match) or null. */
type Engine = {
  name: string;
  compile: (pattern: string) => (text: string) => string | null;
  /** Backtracking: the heavy patterns would run for minutes. */
  backtracks?: boolean;
};

const engines: Engine[] = [
  {
    name: "**re2js 2.10 as the server runs it** (DFA test, then the capture run)",
    compile: (pattern) => {
      const regex = compilePattern(pattern);
      return (text) => regex.find(text);
    },
  },
  {
    name: "re2js 2.10 (pure JavaScript), capture run only",
    compile: (pattern) => {
      const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
      return (text) => {
        const m = re.matcher(text);
        if (!m.find()) return null;
        return re.groupCount() > 0 ? m.group(1) : m.group(0);
      };
    },
  },
  {
    name: "V8 RegExp (backtracking: reference only)",
    backtracks: true,
    compile: (pattern) => {
      const re = new RegExp(pattern, "i");
      return (text) => {
        const m = re.exec(text);
        return m ? (m[1] ?? m[0]) : null;
      };
    },
  },
];

if (values.candidates) {
  const require = createRequire(path.join(path.resolve(values.candidates), "node_modules", "x.js"));
  const tryLoad = (name: string) => {
    try {
      return require(name);
    } catch {
      process.stderr.write(`(${name} not installed in ${values.candidates}: skipped)\n`);
      return null;
    }
  };
  const native = tryLoad("re2");
  if (native) {
    engines.push({
      name: `re2 ${require("re2/package.json").version} (native addon, C++ build)`,
      compile: (pattern) => {
        const re = new native(pattern, "i");
        return (text) => {
          const m = re.exec(text);
          return m ? (m[1] ?? m[0]) : null;
        };
      },
    });
  }
  for (const name of ["re2-wasm", "@adguard/re2-wasm"]) {
    const wasm = tryLoad(name);
    if (!wasm) continue;
    engines.push({
      name: `${name} ${require(`${name}/package.json`).version} (WebAssembly)`,
      compile: (pattern) => {
        const re = new wasm.RE2(pattern, "iu");
        return (text) => {
          const m = re.exec(text);
          return m ? (m[1] ?? m[0]) : null;
        };
      },
    });
  }
}

/** Patterns of the kind admins write for their region's job numbers, in priority order. */
const PATTERNS = [
  String.raw`\bJOB\s*#?\s*(\d{6,10})\b`,
  String.raw`\bINC\s*(\d{6,})\b`,
  String.raw`\b(S\d{9})\b`,
  String.raw`\b(E\d{11})\b`,
  String.raw`\b(F\d{9})\b`,
];

/** The issue's slow bounded patterns, and what the repetition cap leaves of them. */
const HEAVY = [".{0,1000}.{0,1000}X", "(?:.{0,100}){1,10}X", ".{0,100}.{0,100}X"];

const vocab = victorianVocabulary();
const next = seededRandom(28);
const pages = Array.from({ length: count }, (_, i) => pagerMessage(vocab, next, i).display);
const longPage = (pages.join(" ").slice(0, 2000) || "x").padEnd(2000, " ");

function time(run: () => void, repeat = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < repeat; r++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

process.stdout.write(`${machineLine()}\n`);
process.stdout.write(
  `${pages.length} pages (mean ${Math.round(pages.reduce((n, p) => n + p.length, 0) / pages.length)} characters), ${PATTERNS.length} patterns\n\n`,
);
process.stdout.write(
  "| engine | compile 5 patterns | µs per page (5 patterns) | 2,000-char page | `.{0,1000}.{0,1000}X` per page | `(?:.{0,100}){1,10}X` | `.{0,100}.{0,100}X` |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
);
for (const engine of engines) {
  const compileMs = time(() => PATTERNS.map(engine.compile), 5);
  const compiled = PATTERNS.map(engine.compile);
  let groups = 0;
  const apply = (text: string) => {
    for (const match of compiled) {
      if (match(text)) {
        groups++;
        return;
      }
    }
  };
  for (const p of pages.slice(0, 2000)) apply(p); // warm-up
  const perPageUs = (time(() => pages.forEach(apply)) * 1000) / pages.length;
  const longMs = time(() => apply(longPage), 5);
  const heavy = HEAVY.map((pattern) => {
    if (engine.backtracks) return "not run";
    try {
      const match = engine.compile(pattern);
      return `${time(() => match(longPage)).toFixed(2)} ms`;
    } catch (err) {
      return `refused (${String((err as Error).message).slice(0, 40)})`;
    }
  });
  process.stdout.write(
    `| ${engine.name} | ${compileMs.toFixed(2)} ms | ${perPageUs.toFixed(2)} | ${longMs.toFixed(3)} ms | ${heavy.join(" | ")} |\n`,
  );
  if (groups === 0) throw new Error(`${engine.name} matched nothing: the workload is wrong`);
}
