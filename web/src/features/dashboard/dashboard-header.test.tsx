import { ThemeProvider } from "@mui/material/styles";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MESSAGES } from "@turnout/domain";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { AppProviders, createQueryClient } from "../../app/providers";
import { type ColorMode, themeFor } from "../../app/theme";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession, testUser } from "../../testing/session-fixtures";
import { DashboardHeader } from "./dashboard-header";
import type { UserMenuSlots } from "./user-menu";

const DESKTOP_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const ANDROID_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36";

function renderHeader({
  user = testUser,
  connection = "connected",
  slots,
  userAgent = DESKTOP_UA,
}: {
  user?: SessionUser;
  connection?: LiveConnectionState;
  slots?: UserMenuSlots;
  userAgent?: string;
} = {}) {
  vi.spyOn(navigator, "userAgent", "get").mockReturnValue(userAgent);
  const onSignOut = vi.fn().mockResolvedValue(undefined);
  render(
    <AppProviders queryClient={createQueryClient()}>
      <DashboardHeader user={user} connection={connection} onSignOut={onSignOut} slots={slots} />
    </AppProviders>,
  );
  return { user: userEvent.setup(), onSignOut };
}

async function openMenu(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole("button", { name: "User menu for Sam Taylor" }));
  return screen.findByRole("menu");
}

describe("user menu", { timeout: 15_000 }, () => {
  it("shows name, phone, the live state in words, and the items of SPEC 2", async () => {
    const { user } = renderHeader();
    const button = screen.getByRole("button", { name: "User menu for Sam Taylor" });
    expect(button).toHaveAccessibleDescription("Live updates: connected");
    expect(button).toHaveTextContent("ST");
    const menu = await openMenu(user);
    expect(menu).toHaveTextContent("Sam Taylor");
    expect(menu).toHaveTextContent("+61412345678");
    expect(within(menu).getByRole("menuitem", { name: /My Alerts/ })).toHaveAttribute(
      "aria-disabled",
      "true",
    );
    expect(within(menu).getByRole("menuitem", { name: /My Alerts/ })).toHaveTextContent("Coming soon");
    expect(within(menu).getByRole("menuitem", { name: /Feedback/ })).toHaveAttribute("aria-disabled", "true");
    expect(within(menu).getByRole("menuitem", { name: "Sign out" })).toBeInTheDocument();
    expect(within(menu).queryByRole("menuitem", { name: /Admin/ })).not.toBeInTheDocument();
  });

  it.each(["connecting", "reconnecting", "disconnected", "failed"] as const)(
    "says the live channel is %s, not only by colour",
    (connection) => {
      renderHeader({ connection });
      expect(screen.getByRole("button", { name: "User menu for Sam Taylor" })).toHaveAccessibleDescription(
        `Live updates: ${connection}`,
      );
    },
  );

  it("opens My Alerts through the slot another feature fills", async () => {
    const onOpenMyAlerts = vi.fn();
    const { user } = renderHeader({ slots: { onOpenMyAlerts } });
    const menu = await openMenu(user);
    const item = within(menu).getByRole("menuitem", { name: "My Alerts" });
    expect(item).not.toHaveAttribute("aria-disabled");
    await user.click(item);
    expect(onOpenMyAlerts).toHaveBeenCalledTimes(1);
  });

  it("shows the unread feedback badge to non-admins, capped at 9+", async () => {
    const { user } = renderHeader({ slots: { onOpenFeedback: vi.fn(), feedbackUnread: 12 } });
    expect(screen.getByRole("button", { name: "User menu for Sam Taylor" })).toHaveAccessibleDescription(
      "Live updates: connected, 9+ unread feedback",
    );
    const menu = await openMenu(user);
    expect(within(menu).getByRole("menuitem", { name: /Feedback/ })).toHaveTextContent("9+");
  });

  it("shows 'Admin' to an admin on a desktop browser, never on a mobile one", async () => {
    const admin = { ...testUser, is_admin: true };
    const desktop = renderHeader({ user: admin });
    const menu = await openMenu(desktop.user);
    expect(within(menu).getByRole("menuitem", { name: /Admin/ })).toHaveTextContent("Coming soon");
  });

  it("keeps 'Admin' away from an admin on a phone", async () => {
    const { user } = renderHeader({ user: { ...testUser, is_admin: true }, userAgent: ANDROID_UA });
    const menu = await openMenu(user);
    expect(within(menu).queryByRole("menuitem", { name: /Admin/ })).not.toBeInTheDocument();
  });

  it("signs out", async () => {
    const { user, onSignOut } = renderHeader();
    const menu = await openMenu(user);
    await user.click(within(menu).getByRole("menuitem", { name: "Sign out" }));
    expect(onSignOut).toHaveBeenCalledTimes(1);
  });
});

function renderHeaderInTheme(mode: ColorMode, connection: LiveConnectionState) {
  render(
    <ThemeProvider theme={themeFor(mode)}>
      <DashboardHeader user={testUser} connection={connection} onSignOut={vi.fn()} />
    </ThemeProvider>,
  );
  return within(screen.getByRole("banner")).getByRole("button", { name: "User menu for Sam Taylor" });
}

describe("live connection avatar", { timeout: 15_000 }, () => {
  it("shows a different icon shape for up, coming up and down, and the state in words on hover", async () => {
    const shapes = (["connected", "connecting", "disconnected"] as const).map((connection) => {
      const button = renderHeaderInTheme("light", connection);
      const shape = button.querySelector("[data-connection-icon] path")?.getAttribute("d");
      cleanup();
      return shape;
    });
    expect(shapes.every(Boolean)).toBe(true);
    expect(new Set(shapes).size).toBe(3);

    // The browser's own hint on hover (no tooltip library in the feed's bundle), and the same words
    // read out as the button's description.
    const button = renderHeaderInTheme("dark", "disconnected");
    expect(button).toHaveAttribute("title", "Live updates: disconnected");
    expect(button).toHaveAccessibleDescription("Live updates: disconnected");
  });
});

describe("not-live pill", () => {
  it.each([
    ["connecting", "Connecting"],
    ["reconnecting", "Reconnecting"],
    ["disconnected", "Not live"],
    ["failed", "Not live"],
  ] as const)("shows an amber '%s' pill in the header while not live", (connection, word) => {
    renderHeaderInTheme("light", connection);
    const pill = screen.getByRole("banner").querySelector(`[data-not-live="${connection}"]`) as HTMLElement;
    expect(pill).toHaveTextContent(word);
    expect(getComputedStyle(pill).backgroundColor).toBe("rgb(255, 213, 79)");
  });

  it("shows none while live", () => {
    renderHeaderInTheme("dark", "connected");
    expect(screen.getByRole("banner").querySelector("[data-not-live]")).toBeNull();
  });
});

describe("development banner", { timeout: 15_000 }, () => {
  it("shows when the server says it runs in development", async () => {
    mockApi({
      "GET /health": { body: { status: "ok", environment: "development" } },
      "GET /alerts/search": { body: { success: true, data: [], pagination: { has_more: false } } },
    });
    storeSession();
    renderApp("/");
    expect(await screen.findByRole("note")).toHaveTextContent(MESSAGES.DEV_BANNER);
  });

  it("stays away otherwise", async () => {
    mockApi({
      "GET /health": { body: { status: "ok", environment: "production" } },
      "GET /alerts/search": { body: { success: true, data: [], pagination: { has_more: false } } },
    });
    storeSession();
    renderApp("/");
    await screen.findByText(MESSAGES.NO_ALERTS);
    expect(screen.queryByText(MESSAGES.DEV_BANNER)).not.toBeInTheDocument();
  });
});
