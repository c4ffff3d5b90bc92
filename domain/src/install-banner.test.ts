import { describe, expect, it } from "vitest";
import { INSTALL_REMIND_LATER_MS } from "./constants.js";
import {
  installedPreference,
  isInstallChoiceReset,
  neverRemindPreference,
  parseInstallPreference,
  remindLaterPreference,
  shouldShowInstallBanner,
} from "./install-banner.js";

const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);
const base = {
  isStandalone: false,
  isLoggedIn: true,
  preference: null,
  dismissedThisSession: false,
  now: NOW,
};

describe("shouldShowInstallBanner", () => {
  it("shows to a logged-in user in the browser with no preference", () => {
    expect(shouldShowInstallBanner(base)).toBe(true);
  });

  it("hides when the app already runs standalone", () => {
    expect(shouldShowInstallBanner({ ...base, isStandalone: true })).toBe(false);
  });

  it("never shows to logged-out users", () => {
    expect(shouldShowInstallBanner({ ...base, isLoggedIn: false })).toBe(false);
  });

  it("hides after a dismissal in this browser session", () => {
    expect(shouldShowInstallBanner({ ...base, dismissedThisSession: true })).toBe(false);
  });

  it("hides for never-remind and installed preferences", () => {
    expect(shouldShowInstallBanner({ ...base, preference: neverRemindPreference(NOW) })).toBe(false);
    expect(shouldShowInstallBanner({ ...base, preference: installedPreference(NOW) })).toBe(false);
  });

  it("hides until 48 hours after Remind Later, then shows again", () => {
    const preference = remindLaterPreference(NOW);
    expect(shouldShowInstallBanner({ ...base, preference })).toBe(false);
    expect(shouldShowInstallBanner({ ...base, preference, now: NOW + INSTALL_REMIND_LATER_MS - 1 })).toBe(
      false,
    );
    expect(shouldShowInstallBanner({ ...base, preference, now: NOW + INSTALL_REMIND_LATER_MS })).toBe(true);
  });

  it("is 48 hours exactly", () => {
    expect(INSTALL_REMIND_LATER_MS).toBe(172_800_000);
  });

  it("reads remindLater stored as epoch milliseconds or numeric text", () => {
    expect(shouldShowInstallBanner({ ...base, preference: { remindLater: NOW - 1000 } })).toBe(false);
    expect(shouldShowInstallBanner({ ...base, preference: { remindLater: String(NOW - 1000) } })).toBe(false);
  });

  it("ignores an unreadable remindLater", () => {
    expect(shouldShowInstallBanner({ ...base, preference: { remindLater: "soon" } })).toBe(true);
    expect(shouldShowInstallBanner({ ...base, preference: { remindLater: null } })).toBe(true);
  });
});

describe("preferences", () => {
  it("records when Remind Later was pressed and when the app was installed", () => {
    expect(remindLaterPreference(NOW)).toEqual({ remindLater: "2026-11-22T03:00:00.000Z" });
    expect(installedPreference(NOW)).toEqual({ installed: true, installDate: "2026-11-22T03:00:00.000Z" });
    expect(neverRemindPreference(NOW)).toEqual({
      neverRemind: true,
      neverRemindDate: "2026-11-22T03:00:00.000Z",
    });
  });

  it("round-trips through stored JSON", () => {
    const stored = JSON.stringify(remindLaterPreference(NOW));
    expect(parseInstallPreference(stored)).toEqual({ remindLater: "2026-11-22T03:00:00.000Z" });
  });

  it("parses unreadable storage as no preference and drops wrongly typed fields", () => {
    expect(parseInstallPreference(null)).toBeNull();
    expect(parseInstallPreference("{not json")).toBeNull();
    expect(parseInstallPreference("42")).toBeNull();
    expect(parseInstallPreference('{"neverRemind":"yes","installed":true}')).toEqual({
      neverRemind: undefined,
      installed: true,
    });
  });
});

describe("isInstallChoiceReset", () => {
  const before = new Date(NOW - 60_000).toISOString();
  const after = new Date(NOW + 60_000).toISOString();

  it("forgets a Remind Later, never-remind or installed choice made before the admin's reset", () => {
    expect(isInstallChoiceReset(remindLaterPreference(NOW), after)).toBe(true);
    expect(isInstallChoiceReset(neverRemindPreference(NOW), after)).toBe(true);
    expect(isInstallChoiceReset(installedPreference(NOW), after)).toBe(true);
  });

  it("keeps a choice made after the reset, so one reset shows the banner once", () => {
    expect(isInstallChoiceReset(remindLaterPreference(NOW), before)).toBe(false);
    expect(isInstallChoiceReset(neverRemindPreference(NOW), before)).toBe(false);
    expect(isInstallChoiceReset(installedPreference(NOW), before)).toBe(false);
    expect(isInstallChoiceReset(remindLaterPreference(NOW), new Date(NOW).toISOString())).toBe(false);
  });

  it("counts a stored choice without a time (saved by an older version) as older than any reset", () => {
    expect(isInstallChoiceReset({ neverRemind: true }, before)).toBe(true);
    expect(isInstallChoiceReset({ neverRemind: true, neverRemindDate: "soon" }, before)).toBe(true);
  });

  it("is no reset without a reset time, with an unreadable one, or with no stored choice", () => {
    expect(isInstallChoiceReset(neverRemindPreference(NOW), null)).toBe(false);
    expect(isInstallChoiceReset(neverRemindPreference(NOW), undefined)).toBe(false);
    expect(isInstallChoiceReset(neverRemindPreference(NOW), "not a date")).toBe(false);
    expect(isInstallChoiceReset(null, after)).toBe(false);
  });

  it("reads a Remind Later stored as epoch milliseconds", () => {
    expect(isInstallChoiceReset({ remindLater: NOW }, after)).toBe(true);
    expect(isInstallChoiceReset({ remindLater: String(NOW) }, before)).toBe(false);
  });
});
