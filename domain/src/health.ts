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

/** Shown as a warning when no cache store (Redis) is configured and the in-process fallback serves. */
export const CACHE_NOT_CONFIGURED_TEXT =
  "Cache store is not configured (in-process fallback, single server only)";

/** Shown as a warning when the server has no ffmpeg: feedback videos are kept unconverted, without posters. */
export const VIDEO_CONVERSION_UNAVAILABLE_TEXT = "Video conversion is unavailable (ffmpeg not found)";

/**
 * Derives overall health, critical issues and warnings from metrics (SPEC 9 thresholds); missing numbers
 * are skipped. A cache store that is not configured (`cacheNotConfigured`) is a warning, not critical:
 * one server runs correctly on the in-process fallback. No ffmpeg (`videoConversionUnavailable`) is a
 * warning too: everything works except converting feedback videos. An SMS budget reached within the
 * hour (`smsBudgetsReached`, issue 27) is a critical issue: strangers' sign-in SMS are held back.
 */
export function computeHealth(m: {
  memoryPercent?: number | null;
  cpuPercent?: number | null;
  databaseConnected: boolean;
  cacheConnected: boolean;
  cacheNotConfigured?: boolean;
  videoConversionUnavailable?: boolean;
  smsBudgetsReached?: readonly SmsBudgetName[];
}): { overall: HealthStatus; issues: string[]; warnings: string[] } {
  const issues: string[] = [];
  const warnings: string[] = [];
  if (!m.databaseConnected) issues.push("Database is not connected");
  for (const name of m.smsBudgetsReached ?? []) issues.push(smsBudgetHealthIssue(name));
  if (m.cacheNotConfigured) warnings.push(CACHE_NOT_CONFIGURED_TEXT);
  else if (!m.cacheConnected) issues.push("Cache store is not connected");
  if (m.videoConversionUnavailable) warnings.push(VIDEO_CONVERSION_UNAVAILABLE_TEXT);
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
  return { overall, issues, warnings };
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
