// `npm start`: build what is missing (the web app, the compiled server), then run the server on plain
// JavaScript (migrations and seeding happen on start).
import { spawn } from "node:child_process";
import path from "node:path";
import { ensureServerBuilt, SERVER_COMMAND, SERVER_ENV } from "./server-build.mjs";
import { ensureWebBuilt } from "./web-build.mjs";

const root = path.resolve(import.meta.dirname, "..");
try {
  ensureWebBuilt();
  await ensureServerBuilt();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

const child = spawn(process.execPath, SERVER_COMMAND, {
  cwd: root,
  env: { ...SERVER_ENV, ...process.env },
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
