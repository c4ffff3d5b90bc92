import { type InstallPreference, STORAGE_KEYS, STORAGE_PREFIX } from "@turnout/domain";
import type { z } from "zod/mini";
import { readSessionAgency, readSessionUser, type SessionAgency, type SessionUser } from "./types";

/** A fixed key, or a per-user key built below (always under the product prefix). */
type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS] | `${typeof STORAGE_PREFIX}${string}`;

/** Prefix of the per-user offline copies of the alert feed. */
const ALERT_CACHE_PREFIX = `${STORAGE_PREFIX}alerts_cache_` as const;

/** Prefix of the per-user answers to jobs given offline and not yet sent. */
const PENDING_RESPONSES_PREFIX = `${STORAGE_PREFIX}pending_responses_` as const;

/**
 * Prefix of the per-user alarm settings of this device (mute, screen-on time, choices per unit). Kept
 * across sign-outs: a member's choices for their units are not private and should not be lost.
 */
const ALARM_SETTINGS_PREFIX = `${STORAGE_PREFIX}alarm_settings_` as const;

function alarmSettingsKey(userId: number | string): StorageKey {
  return `${ALARM_SETTINGS_PREFIX}${encodeURIComponent(String(userId))}`;
}

function alertCacheKey(userId: number | string): StorageKey {
  return `${ALERT_CACHE_PREFIX}${encodeURIComponent(String(userId))}`;
}

function pendingResponsesKey(userId: number | string): StorageKey {
  return `${PENDING_RESPONSES_PREFIX}${encodeURIComponent(String(userId))}`;
}

/** Device credentials by phone (issue 27). */
const DEVICE_CREDENTIALS_KEY: StorageKey = `${STORAGE_PREFIX}device_credentials`;
const MAX_DEVICE_CREDENTIALS = 8;

function credentialMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter(
    (e): e is [string, string] => typeof e[1] === "string" && e[1].length < 2048,
  );
  return Object.fromEntries(entries);
}

/** Every per-user copy: the offline feeds and the unsent answers. */
function removeUserCopies(): void {
  try {
    const local = area("local");
    if (!local) return;
    const keys: string[] = [];
    for (let i = 0; i < local.length; i++) {
      const key = local.key(i);
      if (key?.startsWith(ALERT_CACHE_PREFIX) || key?.startsWith(PENDING_RESPONSES_PREFIX)) keys.push(key);
    }
    for (const key of keys) local.removeItem(key);
  } catch {
    // nothing to do
  }
}
type Area = "local" | "session";

function area(which: Area): Storage | null {
  try {
    return which === "local" ? window.localStorage : window.sessionStorage;
  } catch {
    // Storage can be switched off entirely (privacy modes); behave as if nothing is kept.
    return null;
  }
}

function readRaw(which: Area, key: StorageKey): string | null {
  try {
    return area(which)?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function writeRaw(which: Area, key: StorageKey, value: string): void {
  try {
    area(which)?.setItem(key, value);
  } catch {
    // Quota or privacy mode: the app keeps working without persistence.
  }
}

function remove(which: Area, key: StorageKey): void {
  try {
    area(which)?.removeItem(key);
  } catch {
    // nothing to do
  }
}

/** The outcome of reading one JSON value: absent, unreadable (cleared) or a valid value. */
export type JsonRead<T> = { state: "absent" } | { state: "unreadable" } | { state: "ok"; value: T };

/** Checks a parsed JSON value: the value of the expected shape, or undefined when it is not. */
type Reader<T> = (value: unknown) => T | undefined;

/**
 * A zod schema as a Reader. Storage is loaded before the login screen and does not import zod
 * itself: the schemas come from the (lazily loaded) features that own them.
 */
function schemaReader<T>(schema: z.ZodMiniType<T>): Reader<T> {
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };
}

function readJson<T>(which: Area, key: StorageKey, read: Reader<T>): JsonRead<T> {
  const raw = readRaw(which, key);
  if (raw === null) return { state: "absent" };
  try {
    const value = read(JSON.parse(raw));
    if (value !== undefined) return { state: "ok", value };
  } catch {
    // fall through: unreadable
  }
  remove(which, key);
  return { state: "unreadable" };
}

/** A stored agency may be null: the login result carried none. */
const readStoredAgency: Reader<SessionAgency | null> = (value) =>
  value === null ? null : readSessionAgency(value);

function readValue<T>(read: JsonRead<T>): T | null {
  return read.state === "ok" ? read.value : null;
}

/** What the browser holds of a session; `unreadable` is true when a stored part was corrupt. */
export interface StoredSession {
  token: string | null;
  user: SessionUser | null;
  agency: SessionAgency | null;
  /** The agency key exists (a login result may carry agency null, which is stored as null). */
  agencyStored: boolean;
  unreadable: boolean;
}

export const storage = {
  getToken(): string | null {
    const token = readRaw("local", STORAGE_KEYS.token);
    return token && token.length > 0 ? token : null;
  },

  readSession(): StoredSession {
    const user = readJson("local", STORAGE_KEYS.user, readSessionUser);
    const agency = readJson("local", STORAGE_KEYS.agency, readStoredAgency);
    return {
      token: storage.getToken(),
      user: readValue(user),
      agency: readValue(agency),
      agencyStored: agency.state === "ok",
      unreadable: user.state === "unreadable" || agency.state === "unreadable",
    };
  },

  saveSession(token: string, user: SessionUser, agency: SessionAgency | null): void {
    writeRaw("local", STORAGE_KEYS.token, token);
    writeRaw("local", STORAGE_KEYS.user, JSON.stringify(user));
    writeRaw("local", STORAGE_KEYS.agency, JSON.stringify(agency));
  },

  /** Sign-out: token, user and agency go, and with them every offline copy of alerts and unsent answer. */
  clearSession(): void {
    remove("local", STORAGE_KEYS.token);
    remove("local", STORAGE_KEYS.user);
    remove("local", STORAGE_KEYS.agency);
    remove("local", STORAGE_KEYS.installBannerResetAt);
    removeUserCopies();
  },
  /** The user's offline copy of the alert feed, if it is there and of the expected shape. */
  getAlertCache<T>(userId: number | string, schema: z.ZodMiniType<T>): T | null {
    return readValue(readJson("local", alertCacheKey(userId), schemaReader(schema)));
  },
  setAlertCache(userId: number | string, value: unknown): void {
    writeRaw("local", alertCacheKey(userId), JSON.stringify(value));
  },

  /** The user's answers to jobs that wait for the network, if stored and of the expected shape. */
  getPendingResponses<T>(userId: number | string, schema: z.ZodMiniType<T>): T | null {
    return readValue(readJson("local", pendingResponsesKey(userId), schemaReader(schema)));
  },
  setPendingResponses(userId: number | string, value: unknown[]): void {
    if (value.length === 0) remove("local", pendingResponsesKey(userId));
    else writeRaw("local", pendingResponsesKey(userId), JSON.stringify(value));
  },

  /** The user's alarm settings on this device, read with `schema` (the domain's alarmSettingsSchema). */
  getAlarmSettings<T>(userId: number | string, schema: z.ZodMiniType<T>): T | null {
    return readValue(readJson("local", alarmSettingsKey(userId), schemaReader(schema)));
  },
  setAlarmSettings(userId: number | string, value: unknown): void {
    writeRaw("local", alarmSettingsKey(userId), JSON.stringify(value));
  },

  /**
   * The credential this device was given when it last signed in with `phone` (issue 27). It outlives
   * sign-out on purpose: it is what lets the owner in first while strangers hammer the phone.
   */
  getDeviceCredential(phone: string): string | null {
    const all = readJson("local", DEVICE_CREDENTIALS_KEY, credentialMap);
    const value = readValue(all)?.[phone];
    return typeof value === "string" ? value : null;
  },

  setDeviceCredential(phone: string, credential: string): void {
    const all = { ...(readValue(readJson("local", DEVICE_CREDENTIALS_KEY, credentialMap)) ?? {}) };
    all[phone] = credential;
    // A shared station tablet may serve a few members: keep the most recent few.
    const kept = Object.fromEntries(Object.entries(all).slice(-MAX_DEVICE_CREDENTIALS));
    writeRaw("local", DEVICE_CREDENTIALS_KEY, JSON.stringify(kept));
  },

  getDeviceId(): string | null {
    const id = readRaw("local", STORAGE_KEYS.deviceId);
    return id && /^[0-9a-f]{16,128}$/i.test(id) ? id : null;
  },

  setDeviceId(id: string): void {
    writeRaw("local", STORAGE_KEYS.deviceId, id);
  },

  /** The stored install-banner choice read with `schema` (the domain's installPreferenceSchema). */
  getInstallPreference(schema: z.ZodMiniType<InstallPreference>): InstallPreference | null {
    return readValue(readJson("local", STORAGE_KEYS.installPreference, schemaReader(schema)));
  },

  setInstallPreference(preference: InstallPreference): void {
    writeRaw("local", STORAGE_KEYS.installPreference, JSON.stringify(preference));
  },

  clearInstallPreference(): void {
    remove("local", STORAGE_KEYS.installPreference);
  },

  isInstallBannerDismissed(): boolean {
    return readRaw("session", STORAGE_KEYS.installDismissed) === "true";
  },

  setInstallBannerDismissed(): void {
    writeRaw("session", STORAGE_KEYS.installDismissed, "true");
  },

  clearInstallBannerDismissed(): void {
    remove("session", STORAGE_KEYS.installDismissed);
  },

  /** When this tab last reloaded to recover from a part of the app that failed to load (epoch ms). */
  getLoadFailureReloadAt(): number | null {
    const value = Number(readRaw("session", STORAGE_KEYS.loadFailureReloadAt));
    return Number.isFinite(value) && value > 0 ? value : null;
  },

  setLoadFailureReloadAt(at: number): void {
    writeRaw("session", STORAGE_KEYS.loadFailureReloadAt, String(at));
  },

  /** When an admin last reset the signed-in user's install banner (the profile's pwa_banner_reset_at). */
  getInstallBannerResetAt(): string | null {
    const value = readRaw("local", STORAGE_KEYS.installBannerResetAt);
    return value && value.length <= 64 ? value : null;
  },

  setInstallBannerResetAt(resetAt: string | null): void {
    if (resetAt) writeRaw("local", STORAGE_KEYS.installBannerResetAt, resetAt);
    else remove("local", STORAGE_KEYS.installBannerResetAt);
  },
};
