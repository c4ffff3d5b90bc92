/**
 * Brings a kept benchmark database (load-search.ts: bench1m, bench10m) up to the server's latest
 * migration, as the server would at start, and says how long that took (a new index at 10 M alerts
 * takes minutes):
 *
 *   npx tsx bench/server/migrate.ts bench10m
 */
import { openDatabase } from "../../server/src/db/client.js";
import { baseDatabaseUrl, runMain } from "./lib/common.js";

async function main() {
  const name = process.argv[2] ?? "";
  if (!/^bench\w*$/.test(name))
    throw new Error("usage: migrate.ts bench<name> (a database load-search.ts made)");
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  const started = performance.now();
  const handle = await openDatabase({ databaseUrl: url.toString(), pgliteDir: "" });
  await handle.close();
  console.log(`${name} migrated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

runMain(main);
