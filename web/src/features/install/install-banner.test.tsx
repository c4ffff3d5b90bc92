import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { INSTALL_REMIND_LATER_MS, STANDALONE_CHECK_INTERVAL_MS, STORAGE_KEYS } from "@turnout/domain";
import type { SessionUser } from "../../api/types";
import { InstallBanner } from "./install-banner";
import { consumeInstallPrompt } from "./install-prompt";

const user: SessionUser = {
  id: 7,
  first_name: "Sam",
  last_name: "Ng",
  phone: "+61412345678",
  is_admin: false,
};
const NOW = Date.parse("2026-11-22T08:00:00.000Z");

function renderBanner(signedIn: SessionUser | null = user) {
  const events = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  const result = render(<InstallBanner user={signedIn} />);
  return { ...result, events };
}

const banner = () => screen.queryByRole("region", { name: "Install Turnout App" });
const storedPreference = () => JSON.parse(localStorage.getItem(STORAGE_KEYS.installPreference) ?? "null");

/** An ISO time from this test's run: the fake clock starts at NOW and also moves with real time. */
const justNow = expect.stringMatching(/^2026-11-22T08:00:0\d\.\d{3}Z$/);

/** A stand-in for Chrome's BeforeInstallPromptEvent. */
function fireInstallPrompt(outcome: "accepted" | "dismissed") {
  const event = Object.assign(new Event("beforeinstallprompt", { cancelable: true }), {
    prompt: vi.fn(async () => undefined),
    userChoice: Promise.resolve({ outcome, platform: "web" }),
  });
  act(() => {
    window.dispatchEvent(event);
  });
  return event;
}

function matchStandalone(matches: boolean) {
  vi.spyOn(window, "matchMedia").mockImplementation(
    (query: string) =>
      ({
        matches: matches && query === "(display-mode: standalone)",
        media: query,
        addEventListener: () => {},
        removeEventListener: () => {},
      }) as unknown as MediaQueryList,
  );
}

describe("InstallBanner", () => {
  beforeEach(() => {
    // shouldAdvanceTime: user-event's clicks wait on timers of their own.
    vi.useFakeTimers({
      now: NOW,
      shouldAdvanceTime: true,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    });
  });
  afterEach(() => {
    consumeInstallPrompt();
    Reflect.deleteProperty(navigator, "standalone");
  });

  it("offers installing to a signed-in user in a browser tab", () => {
    renderBanner();
    expect(banner()).toBeInTheDocument();
    expect(screen.getByText("Install Turnout App")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Remind Later" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Install" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Don't remind me again" })).toBeInTheDocument();
  });

  it("is never shown to a signed-out visitor", () => {
    renderBanner(null);
    expect(banner()).not.toBeInTheDocument();
  });

  it("hides on Remind Later, stores when, and comes back 48 hours later", async () => {
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Remind Later" }));
    expect(banner()).not.toBeInTheDocument();
    expect(storedPreference()).toEqual({ remindLater: justNow });

    // Jump to just before the 48 h are up, then let the one-second check run.
    const remindedAt = Date.parse(storedPreference().remindLater);
    vi.setSystemTime(remindedAt + INSTALL_REMIND_LATER_MS - 3 * STANDALONE_CHECK_INTERVAL_MS);
    act(() => vi.advanceTimersByTime(STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(3 * STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).toBeInTheDocument();
  });

  it("stays away for good after the never-remind dismiss, this session included", async () => {
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Don't remind me again" }));
    expect(banner()).not.toBeInTheDocument();
    expect(storedPreference()).toEqual({ neverRemind: true, neverRemindDate: justNow });
    expect(sessionStorage.getItem(STORAGE_KEYS.installDismissed)).toBe("true");
    vi.setSystemTime(NOW + 10 * INSTALL_REMIND_LATER_MS);
    act(() => vi.advanceTimersByTime(STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).not.toBeInTheDocument();
  });

  it("shows again within a second once an admin's reset is newer than the never-remind choice", async () => {
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Don't remind me again" }));
    expect(banner()).not.toBeInTheDocument();

    // What the auth feature stores from the profile after the admin's reset.
    localStorage.setItem(STORAGE_KEYS.installBannerResetAt, new Date(NOW + 60_000).toISOString());
    vi.setSystemTime(NOW + 120_000);
    act(() => vi.advanceTimersByTime(STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).toBeInTheDocument();
    expect(localStorage.getItem(STORAGE_KEYS.installPreference)).toBeNull();
    expect(sessionStorage.getItem(STORAGE_KEYS.installDismissed)).toBeNull();

    // A choice made after the reset holds: the same reset does not bring the banner back twice.
    await events.click(screen.getByRole("button", { name: "Remind Later" }));
    act(() => vi.advanceTimersByTime(STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).not.toBeInTheDocument();
  });

  it("keeps the choice when the admin's reset is older than it", () => {
    localStorage.setItem(
      STORAGE_KEYS.installPreference,
      JSON.stringify({ installed: true, installDate: "2026-11-01T00:00:00.000Z" }),
    );
    localStorage.setItem(STORAGE_KEYS.installBannerResetAt, "2026-10-31T00:00:00.000Z");
    renderBanner();
    expect(banner()).not.toBeInTheDocument();
    expect(storedPreference()).toMatchObject({ installed: true });
  });

  it("stays hidden for the rest of a browser session in which it was dismissed", () => {
    sessionStorage.setItem(STORAGE_KEYS.installDismissed, "true");
    renderBanner();
    expect(banner()).not.toBeInTheDocument();
  });

  it("is hidden once the app is installed", () => {
    localStorage.setItem(
      STORAGE_KEYS.installPreference,
      JSON.stringify({ installed: true, installDate: "2026-11-01T00:00:00.000Z" }),
    );
    renderBanner();
    expect(banner()).not.toBeInTheDocument();
  });

  it("hides within a second when the app starts running standalone", () => {
    matchStandalone(false);
    renderBanner();
    expect(banner()).toBeInTheDocument();
    matchStandalone(true);
    act(() => vi.advanceTimersByTime(STANDALONE_CHECK_INTERVAL_MS));
    expect(banner()).not.toBeInTheDocument();
  });

  it("is hidden when launched from the iOS home screen", () => {
    Object.defineProperty(navigator, "standalone", { value: true, configurable: true });
    renderBanner();
    expect(banner()).not.toBeInTheDocument();
  });

  it("opens the browser's install prompt and remembers an accepted install", async () => {
    const { events } = renderBanner();
    const prompt = fireInstallPrompt("accepted");
    expect(prompt.defaultPrevented).toBe(true);
    await events.click(screen.getByRole("button", { name: "Install" }));
    expect(prompt.prompt).toHaveBeenCalledOnce();
    await waitFor(() => expect(banner()).not.toBeInTheDocument());
    expect(storedPreference()).toEqual({ installed: true, installDate: justNow });
  });

  it("treats a declined install prompt as Remind Later and keeps away this session", async () => {
    const { events } = renderBanner();
    const prompt = fireInstallPrompt("dismissed");
    await events.click(screen.getByRole("button", { name: "Install" }));
    expect(prompt.prompt).toHaveBeenCalledOnce();
    await waitFor(() => expect(banner()).not.toBeInTheDocument());
    expect(storedPreference()).toEqual({ remindLater: justNow });
    expect(sessionStorage.getItem(STORAGE_KEYS.installDismissed)).toBe("true");
  });

  it("catches the install prompt even when it fired before the banner was shown", async () => {
    const { unmount } = renderBanner(null);
    const prompt = fireInstallPrompt("accepted");
    unmount();
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Install" }));
    expect(prompt.prompt).toHaveBeenCalledOnce();
  });

  it("shows 'Add to Home Screen' instructions on iOS, which has no install prompt", async () => {
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
    );
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Install" }));
    expect(screen.getByRole("status")).toHaveTextContent("tap the Share button, then 'Add to Home Screen'");
    expect(banner()).toBeInTheDocument();
  });

  it("points elsewhere to the browser's menu when no prompt was offered", async () => {
    const { events } = renderBanner();
    await events.click(screen.getByRole("button", { name: "Install" }));
    expect(screen.getByRole("status")).toHaveTextContent("open your browser's menu");
  });

  it("records an install made from the browser's own menu", () => {
    renderBanner();
    act(() => {
      window.dispatchEvent(new Event("appinstalled"));
    });
    expect(banner()).not.toBeInTheDocument();
    expect(storedPreference()).toMatchObject({ installed: true });
  });
});
