import { installPreferenceSchema } from "@turnout/domain";
import { makeToken, storeSession, testAgency, testUser } from "../testing/session-fixtures";
import { storage } from "./storage";

describe("storage", () => {
  it("uses the product prefix for every key", () => {
    storage.saveSession("t.o.k", testUser, testAgency);
    storage.setInstallBannerDismissed();
    expect(Object.keys(localStorage).sort()).toEqual(["turnout_agency", "turnout_token", "turnout_user"]);
    expect(Object.keys(sessionStorage).every((key) => key.startsWith("turnout_"))).toBe(true);
  });

  it("reads a stored session back", () => {
    const token = makeToken();
    storeSession({ token });
    expect(storage.readSession()).toEqual({
      token,
      user: testUser,
      agency: testAgency,
      agencyStored: true,
      unreadable: false,
    });
  });

  it("clears a value it cannot read and reports it", () => {
    storeSession();
    localStorage.setItem("turnout_agency", "{broken");
    const session = storage.readSession();
    expect(session.agency).toBeNull();
    expect(session.unreadable).toBe(true);
    expect(localStorage.getItem("turnout_agency")).toBeNull();
  });

  it("treats a user of the wrong shape as unreadable", () => {
    localStorage.setItem("turnout_user", JSON.stringify({ name: "x" }));
    expect(storage.readSession().unreadable).toBe(true);
  });

  it("reads a stored user without is_admin as no administrator and drops fields it does not know", () => {
    const { is_admin: _admin, ...withoutAdmin } = testUser;
    localStorage.setItem("turnout_user", JSON.stringify({ ...withoutAdmin, password: "x" }));
    localStorage.setItem("turnout_agency", "null");
    expect(storage.readSession()).toMatchObject({
      user: { ...withoutAdmin, is_admin: false },
      agency: null,
      agencyStored: true,
      unreadable: false,
    });
    expect(storage.readSession().user).not.toHaveProperty("password");
  });

  it("treats an agency or user id of the wrong type as unreadable", () => {
    localStorage.setItem("turnout_agency", JSON.stringify({ id: true, name: "CFA", code: "CFA" }));
    expect(storage.readSession().unreadable).toBe(true);
    localStorage.setItem("turnout_user", JSON.stringify({ ...testUser, id: null }));
    expect(storage.readSession().unreadable).toBe(true);
  });

  it("clears token, user and agency on sign-out but keeps the device id", () => {
    storeSession();
    storage.setDeviceId("ab".repeat(32));
    storage.clearSession();
    expect(storage.readSession()).toMatchObject({ token: null, user: null, agency: null });
    expect(storage.getDeviceId()).toBe("ab".repeat(32));
  });

  it("keeps the admin's install-banner reset time until sign-out, and forgets it when the profile has none", () => {
    storage.setInstallBannerResetAt("2026-11-22T08:00:00.000Z");
    expect(storage.getInstallBannerResetAt()).toBe("2026-11-22T08:00:00.000Z");
    storage.setInstallBannerResetAt(null);
    expect(storage.getInstallBannerResetAt()).toBeNull();
    storage.setInstallBannerResetAt("2026-11-22T08:00:00.000Z");
    storage.clearSession();
    expect(storage.getInstallBannerResetAt()).toBeNull();
  });

  it("keeps the install preference and drops an unreadable one", () => {
    storage.setInstallPreference({ neverRemind: true });
    expect(storage.getInstallPreference(installPreferenceSchema)).toEqual({ neverRemind: true });
    localStorage.setItem("turnout_install_preference", "nope");
    expect(storage.getInstallPreference(installPreferenceSchema)).toBeNull();
  });
});
