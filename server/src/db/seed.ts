import { SIGNUP_AGENCIES, UNMAPPED_AGENCY } from "@turnout/domain";
import { SECURITY_DEFAULTS } from "../modules/security/defaults.js";
import type { Database } from "./client.js";
import { agencies, appSettings, securityConfig } from "./schema.js";

/** Settings documents and their first values. */
export const SETTINGS_DEFAULTS = {
  auto_activation: { enabled: true },
  admin_notifications: { new_registration_sms: false },
} as const;

/**
 * Brings reference data to its required state: the four sign-up agencies, the UNMAPPED placeholder,
 * default security configuration and settings. Idempotent; never overwrites an admin's changes.
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
    .onConflictDoNothing({ target: securityConfig.key });
  await db
    .insert(appSettings)
    .values(Object.entries(SETTINGS_DEFAULTS).map(([key, value]) => ({ key, value })))
    .onConflictDoNothing({ target: appSettings.key });
}
