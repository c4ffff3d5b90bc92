import { z } from "zod/mini";
import { INSTALL_REMIND_LATER_MS } from "./constants.js";

/** The stored install-banner choice: when Remind Later was pressed, never remind (and when), or installed. */
export type InstallPreference = {
  remindLater?: string | number | null;
  neverRemind?: boolean;
  /** When never-remind was chosen, so an admin's later reset can undo it. */
  neverRemindDate?: string | null;
  installed?: boolean;
  installDate?: string | null;
};

/** Reads a stored install preference leniently (unknown fields dropped, wrong types ignored). */
export const installPreferenceSchema = z.object({
  remindLater: z.catch(z.nullish(z.union([z.string(), z.number()])), undefined),
  neverRemind: z.catch(z.optional(z.boolean()), undefined),
  neverRemindDate: z.catch(z.nullish(z.string()), undefined),
  installed: z.catch(z.optional(z.boolean()), undefined),
  installDate: z.catch(z.nullish(z.string()), undefined),
});

/** Parses stored install-preference JSON; null when missing or unreadable. */
export function parseInstallPreference(raw: string | null | undefined): InstallPreference | null {
  if (!raw) return null;
  try {
    const result = installPreferenceSchema.safeParse(JSON.parse(raw));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

/** Epoch milliseconds of a stored time (ISO date, epoch ms or numeric text); null if unreadable. */
function storedTimeMs(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return null;
  const ms = typeof value === "number" || /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** Decides whether the install banner shows (SPEC 4): logged in, not standalone, not declined, 48 h after Remind Later. */
export function shouldShowInstallBanner(s: {
  isStandalone: boolean;
  isLoggedIn: boolean;
  preference: InstallPreference | null;
  dismissedThisSession: boolean;
  now: number;
}): boolean {
  if (s.isStandalone || !s.isLoggedIn || s.dismissedThisSession) return false;
  const preference = s.preference ?? {};
  if (preference.neverRemind === true || preference.installed === true) return false;
  const remindedAt = storedTimeMs(preference.remindLater);
  return remindedAt === null || s.now - remindedAt >= INSTALL_REMIND_LATER_MS;
}

/** The preference stored when the user presses Remind Later at `now`. */
export function remindLaterPreference(now: number): InstallPreference {
  return { remindLater: new Date(now).toISOString() };
}

/** The preference stored when the user dismisses the banner for good at `now`. */
export function neverRemindPreference(now: number): InstallPreference {
  return { neverRemind: true, neverRemindDate: new Date(now).toISOString() };
}

/** The preference stored once the app has been installed at `now`. */
export function installedPreference(now: number): InstallPreference {
  return { installed: true, installDate: new Date(now).toISOString() };
}

/** When the stored choice was made (Remind Later, never remind or installed), in epoch ms; null when it says no time. */
function choiceMadeAtMs(preference: InstallPreference): number | null {
  const times = [preference.remindLater, preference.neverRemindDate, preference.installDate]
    .map(storedTimeMs)
    .filter((ms): ms is number => ms !== null);
  return times.length > 0 ? Math.max(...times) : null;
}

/**
 * Tells whether an admin's install-banner reset (`resetAt`, ISO, from the profile's
 * `pwa_banner_reset_at`) came after the stored choice, so the choice is to be forgotten and the
 * banner offered again. A choice that records no time counts as older; no reset, an unreadable
 * reset time or no stored choice is never a reset.
 */
export function isInstallChoiceReset(
  preference: InstallPreference | null,
  resetAt: string | null | undefined,
): boolean {
  if (!preference || !resetAt) return false;
  const resetMs = Date.parse(resetAt);
  if (!Number.isFinite(resetMs)) return false;
  const chosenMs = choiceMadeAtMs(preference);
  return chosenMs === null || resetMs > chosenMs;
}
