import { describe, expect, it } from "vitest";
import { INSTALL_REMIND_LATER_MS } from "./constants.js";
import {
  installedPreference,
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
    expect(shouldShowInstallBanner({ ...base, preference: neverRemindPreference() })).toBe(false);
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
    expect(neverRemindPreference()).toEqual({ neverRemind: true });
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
