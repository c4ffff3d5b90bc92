/** User-agent fragments that mark a mobile device (SPEC 2), lower-case. */
export const MOBILE_UA_TOKENS = [
  "android",
  "webos",
  "iphone",
  "ipad",
  "ipod",
  "blackberry",
  "windows phone",
  "mobile",
  "opera mini",
  "iemobile",
] as const;

/** Tells whether a user agent contains any mobile token, ignoring case. */
export function isMobileUserAgent(ua: string): boolean {
  const lower = ua.toLowerCase();
  return MOBILE_UA_TOKENS.some((token) => lower.includes(token));
}

/** Device class sent in the device info. */
export type DeviceClass = "Tablet" | "Mobile" | "Desktop";

/** Classifies a device from its user agent; a "Macintosh" with a portrait screen is an iPad in desktop mode. */
export function classifyDevice(ua: string, screen?: { width: number; height: number }): DeviceClass {
  const lower = ua.toLowerCase();
  if (lower.includes("ipad") || lower.includes("tablet")) return "Tablet";
  if (lower.includes("android") && !lower.includes("mobile")) return "Tablet";
  if (isMobileUserAgent(lower)) return "Mobile";
  // iPadOS asks for desktop sites as "Macintosh" but still reports its screen in portrait.
  if (lower.includes("macintosh") && screen && screen.width < screen.height) return "Tablet";
  return "Desktop";
}

/** Tells whether the dashboard may open the admin console: an admin on a non-mobile device. */
export function canOpenAdminConsole(user: { is_admin?: boolean } | null, ua: string): boolean {
  return user?.is_admin === true && !isMobileUserAgent(ua);
}

/** Tells whether the browser is Safari (or the home-screen app) on iPhone, iPad or iPod. */
export function isIosSafari(ua: string): boolean {
  return /iP(hone|ad|od)/.test(ua) && /WebKit/i.test(ua) && !/CriOS|FxiOS|EdgiOS|OPiOS|GSA\//.test(ua);
}

/** Short browser name for device lists. */
export function describeBrowser(
  ua: string,
): "Chrome" | "Safari" | "Firefox" | "Edge" | "Samsung Internet" | "Other" {
  if (/SamsungBrowser/i.test(ua)) return "Samsung Internet";
  if (/Edg(e|A|iOS)?\//.test(ua)) return "Edge";
  if (/Firefox\/|FxiOS/.test(ua)) return "Firefox";
  if (/OPR\/|Opera/.test(ua)) return "Other";
  if (/Chrome\/|CriOS/.test(ua)) return "Chrome";
  if (/Safari\//.test(ua) || isIosSafari(ua)) return "Safari";
  return "Other";
}

/** Short operating-system name for device lists. */
export function describeOs(ua: string): "Android" | "iOS" | "Windows" | "macOS" | "Linux" | "Other" {
  if (/iPhone|iPad|iPod/.test(ua)) return "iOS";
  if (/Android/i.test(ua)) return "Android";
  if (/Windows/i.test(ua)) return "Windows";
  if (/Mac OS X|Macintosh/.test(ua)) return "macOS";
  if (/Linux|X11/.test(ua)) return "Linux";
  return "Other";
}
