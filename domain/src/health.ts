import { type SmsBudgetName, smsBudgetHealthIssue } from "./abuse.js";

/** Overall system health as the monitor shows it. */
export type HealthStatus = "healthy" | "warning" | "critical";
/** Colour of a monitor bar or figure (MUI palette names). */
export type BarColor = "error" | "warning" | "success";

/** Shown on the health card when there are no issues and no warnings. */
export const HEALTH_ALL_OK_TEXT = "All systems operational";

/** Rounds a percentage to one decimal place for messages. */
function percent(value: number): string {
  return `${Math.round(value * 10) / 10}%`;
}

/**
 * Shown as information (not a warning) when no cache store (Redis) is configured: one server on its
 * in-process store is a normal install (issue 26).
 */
export const SINGLE_INSTANCE_TEXT = "Single instance (no Redis)";

/** The critical issue of a configured cache store (Redis) that does not answer (SPEC 9). */
export const CACHE_NOT_CONNECTED_TEXT = "Cache store is not connected";

/** Shown as a warning beside it: what the server does meanwhile (issue 29). */
export const CACHE_DOWN_REDUCED_TEXT =
  "Serving without the cache store: live events reach only this server's screens, sign-in is refused until it is back, and other limits count on this server only";

/** Shown as a warning when the server has no ffmpeg: feedback videos are kept unconverted, without posters. */
export const VIDEO_CONVERSION_UNAVAILABLE_TEXT = "Video conversion is unavailable (ffmpeg not found)";

/**
 * Derives overall health, critical issues, warnings and notes (information) from metrics (SPEC 9
 * thresholds); missing numbers are skipped. A cache store that is not configured (`cacheNotConfigured`)
 * is a note, not a warning: one server runs correctly on the in-process store. A configured one that
 * is not connected is critical (SPEC 9), with a warning saying what runs reduced meanwhile. No ffmpeg
 * (`videoConversionUnavailable`) is a warning: everything works except converting feedback videos. An
 * SMS budget reached within the hour (`smsBudgetsReached`, issue 27) is a critical issue: strangers'
 * sign-in SMS are held back. Receivers and delivery alarms (issue 33) add their own: a down receiver
 * that is the only one for an agency is critical, any other receiver problem or delivery alarm a warning.
 */
export function computeHealth(m: {
  memoryPercent?: number | null;
  cpuPercent?: number | null;
  databaseConnected: boolean;
  cacheConnected: boolean;
  cacheNotConfigured?: boolean;
  videoConversionUnavailable?: boolean;
  smsBudgetsReached?: readonly SmsBudgetName[];
  /** Receivers late, down or quiet (domain receiverHealth; issue 33). */
  receivers?: { issues: readonly string[]; warnings: readonly string[] };
  /** Delivery-side alarms raised (SMS or push failures, rule-match backlog; issue 33): warnings. */
  deliveryAlarms?: readonly string[];
  /** Errors members' and admins' apps reported in the last hour (POST /api/client-errors). */
  appErrorsLastHour?: number;
}): { overall: HealthStatus; issues: string[]; warnings: string[]; notes: string[] } {
  const issues: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  if (!m.databaseConnected) issues.push("Database is not connected");
  for (const name of m.smsBudgetsReached ?? []) issues.push(smsBudgetHealthIssue(name));
  if (m.cacheNotConfigured) notes.push(SINGLE_INSTANCE_TEXT);
  else if (!m.cacheConnected) {
    issues.push(CACHE_NOT_CONNECTED_TEXT);
    warnings.push(CACHE_DOWN_REDUCED_TEXT);
  }
  if (m.videoConversionUnavailable) warnings.push(VIDEO_CONVERSION_UNAVAILABLE_TEXT);
  issues.push(...(m.receivers?.issues ?? []));
  warnings.push(...(m.receivers?.warnings ?? []), ...(m.deliveryAlarms ?? []));
  if (m.appErrorsLastHour) warnings.push(appErrorsText(m.appErrorsLastHour));
  const memory = m.memoryPercent;
  if (typeof memory === "number" && Number.isFinite(memory)) {
    if (memory > 90) issues.push(`Memory usage is critical (${percent(memory)})`);
    else if (memory > 80) warnings.push(`Memory usage is high (${percent(memory)})`);
  }
  const cpu = m.cpuPercent;
  if (typeof cpu === "number" && Number.isFinite(cpu) && cpu > 80) {
    warnings.push(`CPU usage is high (${percent(cpu)})`);
  }
  const overall: HealthStatus = issues.length > 0 ? "critical" : warnings.length > 0 ? "warning" : "healthy";
  return { overall, issues, warnings, notes };
}

/** The health card's warning for errors reported by people's apps in the last hour. */
export function appErrorsText(count: number): string {
  return `${count} ${count === 1 ? "error" : "errors"} in people's apps in the last hour (system log, category web)`;
}

/** Bar colour for CPU, cache memory and DB connections: error above 80, warning above 60. */
export function usageBarColor(percent: number): BarColor {
  if (percent > 80) return "error";
  if (percent > 60) return "warning";
  return "success";
}

/** Bar colour for system memory: error above 90, warning above 80. */
export function memoryBarColor(percent: number): BarColor {
  if (percent > 90) return "error";
  if (percent > 80) return "warning";
  return "success";
}

/** Colour of a cache or hit ratio: success above 95, warning above 90, else error. */
export function hitRatioColor(percent: number): BarColor {
  if (percent > 95) return "success";
  if (percent > 90) return "warning";
  return "error";
}

/** Colour of the SMS success rate: success at 95 or more, warning at 80 or more, else error. */
export function smsSuccessColor(percent: number): BarColor {
  if (percent >= 95) return "success";
  if (percent >= 80) return "warning";
  return "error";
}
