// `npm start`: build what is missing, then run the server (migrations and seeding happen on start).
import { spawn } from "node:child_process";
import path from "node:path";
import { ensureWebBuilt } from "./web-build.mjs";

const root = path.resolve(import.meta.dirname, "..");
try {
  ensureWebBuilt();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

const child = spawn(process.execPath, ["--import", "tsx", "server/src/main.ts"], {
  cwd: root,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
