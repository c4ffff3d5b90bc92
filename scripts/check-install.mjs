// The install compiles nothing (issue 28): `npm install && npm start` works on a machine with only
// Node, no C/C++ toolchain or Python, and nothing downloaded beyond the npm registry.
//
//   node scripts/check-install.mjs               the lock file's packages: none runs an install script
//                                                but those listed below, each checked for why
//   node scripts/check-install.mjs --guard DIR   writes failing stand-ins for cc, gcc, g++, c++, make,
//                                                python3, python and node-gyp into DIR; run `npm ci`
//                                                with DIR first on PATH (and npm_config_node_gyp set to
//                                                DIR/node-gyp, as .ci/run does), then
//   node scripts/check-install.mjs --verify DIR  fails naming every build tool the install called.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

/**
 * Packages allowed an install script, and why it builds nothing: esbuild's postinstall only checks that
 * its prebuilt binary (the @esbuild/<platform> package, from the registry) runs, and esbuild works
 * without it (`npm install --ignore-scripts` gives a working product).
 */
const ALLOWED = new Map([["esbuild", "verifies its prebuilt @esbuild/<platform> binary; compiles nothing"]]);

const TOOLS = ["cc", "gcc", "g++", "c++", "clang", "make", "python3", "python", "node-gyp"];

function fail(lines) {
  process.stderr.write(`${lines.join("\n")}\n`);
  process.exit(1);
}

const [mode, dir] = process.argv.slice(2);
if (mode === "--guard") {
  mkdirSync(dir, { recursive: true });
  for (const tool of TOOLS) {
    const file = path.join(dir, tool);
    writeFileSync(
      file,
      `#!/bin/sh\necho "${tool} $*" >> "${path.join(dir, "calls.log")}"\necho "install-guard: ${tool} was called: a native build step ran during npm install" >&2\nexit 1\n`,
    );
    chmodSync(file, 0o755);
  }
} else if (mode === "--verify") {
  const log = path.join(dir, "calls.log");
  if (existsSync(log)) {
    fail([
      "A native build step ran during npm install (issue 28: the install must need no compiler):",
      ...readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => `  ${l}`),
    ]);
  }
  process.stdout.write("install: no compiler, make, Python or node-gyp was called\n");
} else {
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8"));
  const problems = [];
  for (const [where, pkg] of Object.entries(lock.packages ?? {})) {
    const name = where.split("node_modules/").pop();
    if (pkg.hasInstallScript && !ALLOWED.has(name))
      problems.push(`  ${where} ${pkg.version}: runs an install script`);
    if (pkg.gypfile)
      problems.push(`  ${where} ${pkg.version}: has a binding.gyp (a native addon built from source)`);
  }
  if (problems.length > 0) {
    fail([
      "package-lock.json holds packages that build or download at install (issue 28):",
      ...problems,
      "Use a package with its binary inside the npm package, or pure JavaScript/WebAssembly, or list it in scripts/check-install.mjs with why it builds nothing.",
    ]);
  }
  process.stdout.write(
    `install: no package of the lock file builds at install (install scripts allowed: ${[...ALLOWED.keys()].join(", ")})\n`,
  );
}
