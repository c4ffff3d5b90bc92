import path from "node:path";
import { loadConfig } from "./config.js";
import { openDatabase } from "./db/client.js";
import { loadAddressDataset, removeAddressDataset } from "./modules/map/address-dataset.js";
import { placeStoredAlerts } from "./modules/map/positions.js";

/**
 * The operator's command for the open address dataset (issue 34): `npm run addresses -- <command>`.
 * It opens the server's database itself (DATABASE_URL, or the embedded one in DATA_DIR: stop the
 * server first then, as the embedded database takes one process at a time). Nothing is downloaded:
 * the operator fetches the extract.
 */
const USAGE = `Usage: npm run addresses -- <command>

  load <file.csv> [--state VIC]   Loads an address extract (CSV with a header, or GNAF Core's
                                  |-separated file) for street and intersection positions; replaces
                                  an earlier load of a file with the same name. --state fills rows
                                  of a file without a state column.
  remove <file-name>              Removes what was loaded from a file of this name.
  place [--all]                   Places the stored alerts that have no position yet (--all: every
                                  alert again, e.g. after loading a dataset).
`;

export async function runAddressCommand(
  argv: readonly string[],
  out: (text: string) => void,
): Promise<number> {
  const [command, ...args] = argv;
  const flags = args.filter((a) => a.startsWith("--"));
  const words = args.filter((a) => !a.startsWith("--"));
  const stateAt = args.indexOf("--state");
  const state = stateAt >= 0 ? args[stateAt + 1] : undefined;
  const positional = words.filter((w) => w !== state);
  const valid =
    (command === "load" && positional.length === 1 && (stateAt < 0 || /^[A-Za-z]{2,3}$/.test(state ?? ""))) ||
    (command === "remove" && positional.length === 1 && flags.length === 0) ||
    (command === "place" && positional.length === 0 && flags.every((f) => f === "--all"));
  if (!valid) {
    out(USAGE);
    return command === "help" || command === "--help" ? 0 : 2;
  }
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, "db"),
  });
  try {
    if (command === "load") {
      const started = performance.now();
      const result = await loadAddressDataset(database.db, positional[0]!, {
        state: state?.toUpperCase(),
        onProgress: (n) => {
          if (n % 100_000 === 0) out(`  ${n} addresses...\n`);
        },
      });
      const skipped = Object.entries(result.skipped).map(([reason, n]) => `${n} ${reason}`);
      out(
        `Loaded ${result.loaded} addresses from ${result.source} in ${Math.round(performance.now() - started) / 1000} s` +
          `${skipped.length ? ` (skipped: ${skipped.join(", ")})` : ""}.\n` +
          "New alerts are placed against it within a minute; `npm run addresses -- place --all` places the stored ones again.\n",
      );
    } else if (command === "remove") {
      out(`Removed ${await removeAddressDataset(database.db, positional[0]!)} addresses.\n`);
    } else {
      const { read, placed } = await placeStoredAlerts(database.db, { all: flags.includes("--all") });
      out(
        `Read ${read} alerts; placed ${placed.coordinates} by their coordinates, ${placed.street} at street level, ` +
          `${placed.intersection} at a corner, ${placed.suburb} at the suburb.\n`,
      );
    }
    return 0;
  } finally {
    await database.close();
  }
}

const isMain = process.argv[1]?.endsWith("address-cli.ts") || process.argv[1]?.endsWith("address-cli.js");
if (isMain) {
  runAddressCommand(process.argv.slice(2), (text) => process.stdout.write(text)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
