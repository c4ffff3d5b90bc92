import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { displays } from "../db/schema.js";
import { unauthorized } from "../errors.js";

// A station display's credential (issue 34): the secret its screen keeps, stored only as a hash. Read
// by the display routes (modules/displays) and by the live channel's handshake (live/display-sockets.ts).

/** The display header its token comes in. */
export const DISPLAY_TOKEN_HEADER = "x-display-token";

/** What is stored of a screen's secret: its SHA-256 (the secret is 32 random bytes, so no salt is needed). */
export const displaySecretHash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** The display a screen's secret signs in, or null. */
export async function displayBySecret(db: Database, secret: string) {
  if (!secret) return null;
  const [display] = await db
    .select()
    .from(displays)
    .where(eq(displays.tokenHash, displaySecretHash(secret)));
  return display ?? null;
}

/** The display a request's token signs in, seen now; throws 401 when there is none. */
export async function authenticateDisplay(db: Database, token: string | undefined) {
  const display = token ? await displayBySecret(db, token) : null;
  if (!display) throw unauthorized("This screen is not paired with a display.");
  await db.update(displays).set({ lastSeenAt: sql`now()` }).where(eq(displays.id, display.id));
  return display;
}
