import { isPlausibleAuPhone, maskPhone, normalizePhone } from "@turnout/domain";
import { type Config, loadConfig } from "./config.js";
import { RECOVERY_TOKEN_SECONDS, signRecoveryToken } from "./shared/tokens.js";

/**
 * The operator's command line (`npm run admin -- <command>`), for what cannot wait for a working
 * sign-in: today the recovery of a locked-out admin (issue 27). It needs only the server's settings
 * (the same environment, or DATA_DIR with its generated secret), no database connection, so it works
 * beside a running server on the embedded database too.
 */

const USAGE = `Usage: npm run admin -- recover <phone>

  recover <phone>   Prints a one-time sign-in link for the account with this phone. Opened within
                    ${RECOVERY_TOKEN_SECONDS / 60} minutes, once, it signs that device in without an SMS, lifts the phone's
                    guard and every lockout and count against it, and makes the device recognised.
                    Give it to the admin out of band (read it out, or a message they can verify).
`;

/** Runs one command; resolves to the exit code. Writes what the operator reads to `out`. */
export async function runAdminCommand(
  argv: readonly string[],
  config: Pick<Config, "jwtSecret" | "publicUrl" | "host" | "port">,
  out: (text: string) => void,
): Promise<number> {
  const [command, ...args] = argv;
  if (command !== "recover" || args.length !== 1) {
    out(USAGE);
    return command === "help" || command === "--help" ? 0 : 2;
  }
  const phone = normalizePhone(args[0]!);
  if (!isPlausibleAuPhone(phone)) {
    out(`Not a phone number: ${args[0]}\n\n${USAGE}`);
    return 2;
  }
  const token = await signRecoveryToken(config.jwtSecret, phone);
  const base = config.publicUrl ?? `http://${config.host}:${config.port}`;
  // A fragment never reaches a server or its logs: the token stays between the browser and the app.
  const link = `${base.replace(/\/$/, "")}/#recover=${token}`;
  out(
    [
      `One-time sign-in for ${maskPhone(phone)}, valid for ${RECOVERY_TOKEN_SECONDS / 60} minutes, usable once:`,
      "",
      `  ${link}`,
      "",
      "Opening it signs that browser in as the account (no SMS), lifts the phone's guard and lockouts,",
      "and records a recovery_sign_in security event. If the phone has no active account, the link says so.",
      "",
    ].join("\n"),
  );
  return 0;
}

const isMain = process.argv[1]?.endsWith("admin-cli.ts") || process.argv[1]?.endsWith("admin-cli.js");
if (isMain) {
  runAdminCommand(process.argv.slice(2), loadConfig(), (text) => process.stdout.write(text)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
