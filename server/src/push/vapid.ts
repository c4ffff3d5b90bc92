import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import { appSettings } from "../db/schema.js";

export type VapidKeys = { publicKey: string; privateKey: string };

const SETTING_KEY = "push.vapid_keys";
const FILE_NAME = "vapid-keys.json";

function isKeyPair(value: unknown): value is VapidKeys {
  const v = value as Partial<VapidKeys> | null;
  return typeof v?.publicKey === "string" && typeof v.privateKey === "string";
}

/**
 * The VAPID key pair push messages are signed with (RFC 8292). Given in the environment, those win.
 * Otherwise one pair is generated once and kept: with the embedded database in `$DATA_DIR/vapid-keys.json`
 * (mode 0600, beside the token key); with PostgreSQL in the database itself, because several instances
 * (each maybe with its own DATA_DIR) must sign with the same pair: a subscription is bound to the public
 * key the browser was given, and a message signed with another is refused by the push service. The first
 * instance's insert wins and every instance reads the same row. Only the public key ever leaves the server.
 */
export async function loadVapidKeys(
  config: Config,
  db: Database,
  kind: "pglite" | "postgres",
): Promise<VapidKeys> {
  if (config.push.vapidKeys) return config.push.vapidKeys;
  if (kind === "pglite") return loadOrCreateFile(config.dataDir);
  const stored = async () => {
    const [row] = await db
      .select({ value: appSettings.value })
      .from(appSettings)
      .where(eq(appSettings.key, SETTING_KEY));
    return row;
  };
  let row = await stored();
  if (!row) {
    await db
      .insert(appSettings)
      .values({ key: SETTING_KEY, value: await newKeyPair() })
      .onConflictDoNothing({ target: appSettings.key });
    row = await stored();
  }
  if (!isKeyPair(row?.value)) throw new Error("push: the stored VAPID key pair is unreadable");
  return row.value;
}

type WebPush = typeof import("web-push");
let webPush: Promise<WebPush> | undefined;
/**
 * web-push, loaded when a key pair is made or a push is sent: an idle server, or one whose members
 * never turn push on, does not hold it (its crypto and HTTP agents) in memory.
 */
export function loadWebPush(): Promise<WebPush> {
  // A CommonJS module: its functions are on the default export when imported from ES modules.
  webPush ??= import("web-push").then((m) => ("default" in m ? m.default : m) as WebPush);
  return webPush;
}

async function newKeyPair(): Promise<VapidKeys> {
  return (await loadWebPush()).generateVAPIDKeys();
}

async function loadOrCreateFile(dataDir: string): Promise<VapidKeys> {
  const file = path.join(dataDir, FILE_NAME);
  try {
    const stored: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (isKeyPair(stored)) return stored;
  } catch {
    // first start: create it below
  }
  mkdirSync(dataDir, { recursive: true });
  const keys = await newKeyPair();
  writeFileSync(file, `${JSON.stringify(keys)}\n`, { mode: 0o600 });
  return keys;
}
