import { z } from "zod";
import { INSTALL_REMIND_LATER_MS } from "./constants.js";

/** The stored install-banner choice: when Remind Later was pressed, never remind, or installed. */
export type InstallPreference = {
  remindLater?: string | number | null;
  neverRemind?: boolean;
  installed?: boolean;
  installDate?: string | null;
};

/** Reads a stored install preference leniently (unknown fields dropped, wrong types ignored). */
export const installPreferenceSchema = z.object({
  remindLater: z.union([z.string(), z.number()]).nullish().catch(undefined),
  neverRemind: z.boolean().optional().catch(undefined),
  installed: z.boolean().optional().catch(undefined),
  installDate: z.string().nullish().catch(undefined),
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

/** Epoch milliseconds of a stored remindLater value (ISO date, epoch ms or numeric text); null if unreadable. */
function remindLaterMs(value: string | number | null | undefined): number | null {
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
  const remindedAt = remindLaterMs(preference.remindLater);
  return remindedAt === null || s.now - remindedAt >= INSTALL_REMIND_LATER_MS;
}

/** The preference stored when the user presses Remind Later at `now`. */
export function remindLaterPreference(now: number): InstallPreference {
  return { remindLater: new Date(now).toISOString() };
}

/** The preference stored when the user dismisses the banner for good. */
export function neverRemindPreference(): InstallPreference {
  return { neverRemind: true };
}

/** The preference stored once the app has been installed at `now`. */
export function installedPreference(now: number): InstallPreference {
  return { installed: true, installDate: new Date(now).toISOString() };
}
