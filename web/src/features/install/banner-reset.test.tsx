import { screen, waitFor } from "@testing-library/react";
import { STORAGE_KEYS } from "@turnout/domain";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession, testUser } from "../../testing/session-fixtures";

// The dashboard is loaded on demand; on a busy machine that takes longer than Testing Library's 1 s.
const LOAD = { timeout: 10_000 };

const banner = () => screen.queryByRole("region", { name: "Install Turnout App" });

function profileWithReset(resetAt: string | null) {
  return { body: { success: true, user: { ...testUser, pwa_banner_reset_at: resetAt } } };
}

vi.setConfig({ testTimeout: 30_000 });

describe("install banner reset by an admin", () => {
  it("offers the banner again on the next start when the profile's reset is newer than the choice", async () => {
    localStorage.setItem(
      STORAGE_KEYS.installPreference,
      JSON.stringify({ neverRemind: true, neverRemindDate: "2026-01-01T00:00:00.000Z" }),
    );
    mockApi({ "GET /auth/profile": profileWithReset("2026-02-01T00:00:00.000Z") });
    storeSession();
    renderApp("/");
    await screen.findByRole("heading", { name: "Alerts", hidden: true }, LOAD);

    await waitFor(() => expect(banner()).toBeInTheDocument(), LOAD);
    expect(localStorage.getItem(STORAGE_KEYS.installPreference)).toBeNull();
  });

  it("keeps the banner away when the choice was made after the reset", async () => {
    localStorage.setItem(
      STORAGE_KEYS.installPreference,
      JSON.stringify({ neverRemind: true, neverRemindDate: "2026-03-01T00:00:00.000Z" }),
    );
    const server = mockApi({ "GET /auth/profile": profileWithReset("2026-02-01T00:00:00.000Z") });
    storeSession();
    renderApp("/");
    await screen.findByRole("heading", { name: "Alerts", hidden: true }, LOAD);
    await waitFor(() => expect(server.callsTo("GET /auth/profile")).toHaveLength(1), LOAD);
    await waitFor(
      () => expect(localStorage.getItem(STORAGE_KEYS.installBannerResetAt)).toBe("2026-02-01T00:00:00.000Z"),
      LOAD,
    );
    // Past the banner's one-second re-check, which has read the stored reset time by now.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(banner()).not.toBeInTheDocument();
    expect(localStorage.getItem(STORAGE_KEYS.installPreference)).not.toBeNull();
  });
});
