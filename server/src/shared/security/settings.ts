import type { Database } from "../../db/client.js";
import { securityConfig } from "../../db/schema.js";
import { SECURITY_DEFAULTS, type SecurityKey } from "../../db/security-defaults.js";

export type SecuritySettings = Record<SecurityKey, number>;

/**
 * The security limits in force: the `security_config` rows, each falling back to its default when
 * missing or not a positive number. Read per use so an admin's change applies at once.
 */
export async function getSecuritySettings(db: Database): Promise<SecuritySettings> {
  const rows = await db.select({ key: securityConfig.key, value: securityConfig.value }).from(securityConfig);
  const stored = new Map(rows.map((r) => [r.key, Number(r.value)]));
  const out = {} as SecuritySettings;
  for (const [key, d] of Object.entries(SECURITY_DEFAULTS) as [SecurityKey, { value: number }][]) {
    const v = stored.get(key);
    out[key] = v !== undefined && Number.isFinite(v) && v > 0 ? v : d.value;
  }
  return out;
}
