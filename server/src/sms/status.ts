// The SMS service's status as admins see it (SPEC 3 'SMS service metrics'): on the SMS tab and the
// System Monitor alike.
import type { Database } from "../db/client.js";
import type { ProviderCheck } from "./messagemedia-provider.js";
import { smsStats } from "./queue-admin.js";
import type { ConfiguredSms } from "./select-provider.js";

/** How long a connection check is reused: the monitor refreshes every 60 s (SPEC 9). */
export const SMS_CHECK_MAX_AGE_MS = 55_000;

/**
 * Remembers the provider's last connection check and runs a new one when it is older than
 * SMS_CHECK_MAX_AGE_MS; concurrent callers share one check.
 */
export function createSmsCheckCache(sms: ConfiguredSms, maxAgeMs = SMS_CHECK_MAX_AGE_MS) {
  let last: ProviderCheck | null = null;
  let running: Promise<ProviderCheck> | null = null;
  return async (): Promise<ProviderCheck | null> => {
    if (!sms.check) return null;
    if (last && Date.now() - last.checkedAt.getTime() < maxAgeMs) return last;
    running ??= sms.check().finally(() => {
      running = null;
    });
    last = await running;
    return last;
  };
}

/**
 * SPEC 3 'SMS service metrics': status (connected, error, not_configured, disconnected), whether SMS
 * really leave the machine, the sender, the last connection check and its time, and the queue's totals.
 */
export async function smsServiceStatus(
  db: Database,
  sms: ConfiguredSms,
  check: () => Promise<ProviderCheck | null>,
) {
  const [stats, result] = await Promise.all([smsStats(db), check()]);
  return {
    status: sms.enabled ? (result?.status ?? "disconnected") : "not_configured",
    is_enabled: sms.enabled,
    provider: sms.provider.name,
    sender_address: sms.sender,
    last_api_check: result?.checkedAt ?? null,
    api_response_time: result?.responseTimeMs ?? null,
    detail: result?.detail ?? null,
    success_rate: stats.success_rate,
    total_sent: stats.total_sent,
    pending: stats.pending,
    failed: stats.failed,
  };
}
