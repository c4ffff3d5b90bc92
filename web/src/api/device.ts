import { classifyDevice, type DeviceInfo, describeBrowser, describeOs } from "@turnout/domain";
import { storage } from "./storage";

/**
 * A small non-cryptographic 128-bit hash (four seeded 32-bit mixes) for browsers without
 * `crypto.subtle` (plain-HTTP origins). It only has to spread the traits evenly.
 */
export function fallbackHash(text: string): string {
  const seeds = [0x9e3779b1, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f];
  return seeds
    .map((seed) => {
      let h = seed ^ text.length;
      for (let i = 0; i < text.length; i++) {
        h = Math.imul(h ^ text.charCodeAt(i), 0x5bd1e995);
        h ^= h >>> 15;
      }
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      h ^= h >>> 16;
      return (h >>> 0).toString(16).padStart(8, "0");
    })
    .join("");
}

async function sha256Hex(text: string): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  try {
    const digest = await subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
  } catch {
    return null;
  }
}

function randomSalt(): string {
  const bytes = new Uint8Array(16);
  if (globalThis.crypto?.getRandomValues) {
    globalThis.crypto.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

let knownTimezone: string | undefined;

type TemporalNow = { Now?: { timeZoneId?: () => string } };

/**
 * The browser's time zone, read once per page. Temporal answers at once where the browser has it;
 * making a DateTimeFormat to ask loads the locale's date formats first (35-75 ms in Chromium here,
 * four times that on a slow phone), which the page's first request would wait for (issue 31).
 */
function timezone(): string {
  if (knownTimezone !== undefined) return knownTimezone;
  try {
    const temporal = (globalThis as { Temporal?: TemporalNow }).Temporal;
    knownTimezone =
      temporal?.Now?.timeZoneId?.() ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? "unknown";
  } catch {
    knownTimezone = "unknown";
  }
  return knownTimezone;
}

function screenResolution(): string {
  return typeof screen === "undefined" ? "unknown" : `${screen.width}x${screen.height}`;
}

/** The browser traits the device id is derived from; the salt keeps two identical machines apart. */
export function deviceTraits(salt: string): string {
  return [
    navigator.userAgent,
    navigator.language,
    screenResolution(),
    typeof screen === "undefined" ? "" : String(screen.colorDepth),
    timezone(),
    String(navigator.hardwareConcurrency ?? ""),
    navigator.platform ?? "",
    salt,
  ].join("|");
}

let pendingDeviceId: Promise<string> | null = null;

async function createDeviceId(): Promise<string> {
  const stored = storage.getDeviceId();
  if (stored) return stored;
  const traits = deviceTraits(randomSalt());
  const id = (await sha256Hex(traits)) ?? fallbackHash(traits);
  // Another tab may have won the race while we hashed: keep theirs so both tabs agree.
  const winner = storage.getDeviceId();
  if (winner) return winner;
  storage.setDeviceId(id);
  return id;
}

/** This browser's device id: generated once from hashed traits, then kept in localStorage. */
export function getDeviceId(): Promise<string> {
  pendingDeviceId ??= createDeviceId().catch((error: unknown) => {
    pendingDeviceId = null;
    throw error;
  });
  return pendingDeviceId;
}

let lastInfo: { key: string; info: DeviceInfo } | undefined;

/** Forget the cached id and device info (tests; and after storage was cleared by hand). */
export function resetDeviceIdCache(): void {
  pendingDeviceId = null;
  knownTimezone = undefined;
  lastInfo = undefined;
}

/**
 * Every device-info field of SPEC 3, sent as JSON in `X-Device-Info`. Every request carries it: worked
 * out again only when the device id or the screen changed.
 */
export function collectDeviceInfo(deviceId: string): DeviceInfo {
  const key = `${deviceId}|${screenResolution()}`;
  if (lastInfo?.key === key) return lastInfo.info;
  const info = describeDevice(deviceId);
  lastInfo = { key, info };
  return info;
}

function describeDevice(deviceId: string): DeviceInfo {
  const userAgent = navigator.userAgent;
  return {
    deviceId,
    device: classifyDevice(
      userAgent,
      typeof screen === "undefined" ? undefined : { width: screen.width, height: screen.height },
    ),
    browser: describeBrowser(userAgent),
    os: describeOs(userAgent),
    screenResolution: screenResolution(),
    timezone: timezone(),
    language: navigator.language,
    platform: navigator.platform ?? "unknown",
  };
}
