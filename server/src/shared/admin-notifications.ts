import { eq } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { appSettings } from "../db/schema.js";

/** The app setting that says which admins are told about accounts awaiting review and monitor alarms. */
export const ADMIN_NOTIFICATIONS = "admin_notifications";

/** Who is told by SMS when an account waits for review; no admin chosen means every active admin. */
export type AdminNotifications = { enabled: boolean; adminIds: number[] };

/** One app setting's stored object; an absent or malformed one reads as `{}`. */
async function readAppSetting(db: Database, key: string): Promise<Record<string, unknown>> {
  const [row] = await db
    .select({ value: appSettings.value })
    .from(appSettings)
    .where(eq(appSettings.key, key));
  const value = row?.value;
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The stored admin-notification choice (auto-activation's reviews and the receivers' alarms read it).
 * Databases seeded before the choice of admins existed hold `{ new_registration_sms }`, read as
 * `enabled` with no admin chosen.
 */
export async function readAdminNotifications(db: Database): Promise<AdminNotifications> {
  const value = await readAppSetting(db, ADMIN_NOTIFICATIONS);
  const enabled = value.enabled ?? value.new_registration_sms;
  const ids = Array.isArray(value.admin_ids) ? value.admin_ids : [];
  return {
    enabled: enabled === true,
    adminIds: ids.filter((id): id is number => Number.isInteger(id)),
  };
}
