import { SIGNUP_AGENCIES, UNMAPPED_AGENCY } from "@turnout/domain";
import { isNull, sql } from "drizzle-orm";
import type { Database } from "./client.js";
import { agencies, appSettings, groupingSettings, securityConfig } from "./schema.js";
import { SECURITY_DEFAULTS } from "./security-defaults.js";

/** Settings documents and their first values. */
export const SETTINGS_DEFAULTS = {
  auto_activation: { enabled: true },
  // On by default (issue 26): an account waiting for review should not wait unseen. Migration 0024
  // turns it on where the old default (off) was never changed by an admin.
  admin_notifications: { enabled: true, admin_ids: [] },
} as const;

/** Message grouping and duplicate suppression: rows of `grouping_settings`, changeable by admins. */
export const GROUPING_DEFAULTS = {
  grouping_enabled: { value: "true", description: "Group messages that share a job number" },
  group_window_hours: {
    value: "24",
    description: "A job number seen again after this many hours starts a new group",
  },
  duplicate_window_seconds: {
    value: "120",
    description: "The same text received again within this many seconds is the same alert",
  },
} as const;

/**
 * Brings reference data to its required state: the four sign-up agencies, the UNMAPPED placeholder,
 * default security configuration, grouping settings and other settings. Idempotent; never overwrites an admin's changes.
 */
export async function seedReferenceData(db: Database): Promise<void> {
  await db
    .insert(agencies)
    .values([...SIGNUP_AGENCIES.map((a) => ({ code: a.code, name: a.name })), { ...UNMAPPED_AGENCY }])
    .onConflictDoNothing({ target: agencies.code });
  await db
    .insert(securityConfig)
    .values(
      Object.entries(SECURITY_DEFAULTS).map(([key, d]) => ({
        key,
        value: String(d.value),
        description: d.description,
      })),
    )
    // A setting no admin has edited takes the current description: a limit's meaning can change.
    .onConflictDoUpdate({
      target: securityConfig.key,
      set: { description: sql`excluded.description` },
      setWhere: isNull(securityConfig.updatedBy),
    });
  await db
    .insert(groupingSettings)
    .values(Object.entries(GROUPING_DEFAULTS).map(([key, d]) => ({ key, ...d })))
    .onConflictDoNothing({ target: groupingSettings.key });
  await db
    .insert(appSettings)
    .values(Object.entries(SETTINGS_DEFAULTS).map(([key, value]) => ({ key, value })))
    .onConflictDoNothing({ target: appSettings.key });
}
