import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { MESSAGES, SESSION_CHECK_INTERVAL_MS, SESSION_ENDED_REDIRECT_MS } from "@turnout/domain";
import { mockApi } from "../../testing/mock-api";
import { currentLocation, renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";

/** Only the timers the app uses: faking more stalls the fetch Response body reader. */
const FAKE_TIMERS = {
  shouldAdvanceTime: true,
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
} satisfies Parameters<typeof vi.useFakeTimers>[0];
const unauthorized = {
  status: 401,
  body: { success: false, errorType: "unauthorized", message: "Unauthorized" },
};

/** Wait for the signed-in page (the dashboard) and for its effects (the session-check listeners) to be attached. */
async function signedInPage() {
  await screen.findByRole("heading", { name: "Alerts", hidden: true });
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

function becomeVisible() {
  act(() => {
    fireEvent(document, new Event("visibilitychange"));
  });
}

describe("session ended", () => {
  it("shows once on a 401 and goes to /login by itself after 5 seconds", async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const server = mockApi({ "GET /auth/profile": { body: { success: true } } });
    storeSession();
    renderApp("/?job=5", { advanceTimers: vi.advanceTimersByTime });
    await signedInPage();
    server.on("GET /auth/profile", unauthorized);

    becomeVisible();
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    expect(dialog).toHaveTextContent(MESSAGES.SESSION_EXPIRED);

    // A second failing check does not stack a second dialog.
    becomeVisible();
    await waitFor(() => expect(server.callsTo("GET /auth/profile")).toHaveLength(3));
    expect(screen.getAllByRole("alertdialog")).toHaveLength(1);

    act(() => vi.advanceTimersByTime(SESSION_ENDED_REDIRECT_MS - 100));
    expect(currentLocation().pathname).toBe("/");
    act(() => vi.advanceTimersByTime(100));
    await waitFor(() => expect(currentLocation().pathname).toBe("/login"));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(localStorage.getItem("turnout_token")).toBeNull();
    expect(localStorage.getItem("turnout_user")).toBeNull();
    expect(localStorage.getItem("turnout_agency")).toBeNull();
  });

  it("'Go to Login' clears the session at once", async () => {
    mockApi({ "GET /auth/profile": unauthorized });
    storeSession();
    const { user } = renderApp("/");
    await signedInPage();
    becomeVisible();
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    await user.click(within(dialog).getByRole("button", { name: "Go to Login" }));
    await waitFor(() => expect(currentLocation().pathname).toBe("/login"));
    expect(localStorage.getItem("turnout_token")).toBeNull();
  });

  it("checks the session on load and then every 5 minutes", async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const server = mockApi({ "GET /auth/profile": { body: { success: true } } });
    storeSession();
    renderApp("/");
    await signedInPage();
    expect(server.callsTo("GET /auth/profile")).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(SESSION_CHECK_INTERVAL_MS - 1000);
    });
    expect(server.callsTo("GET /auth/profile")).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1000);
    });
    expect(server.callsTo("GET /auth/profile")).toHaveLength(2);
    expect(server.callsTo("GET /auth/profile")[1]?.headers.get("Authorization")).toMatch(/^Bearer /);
  });

  it("says an administrator ended the session when the server says so", async () => {
    mockApi({
      "GET /auth/profile": {
        status: 401,
        body: { success: false, errorType: "unauthorized", reason: "logged_out_by_admin" },
      },
    });
    storeSession();
    renderApp("/");
    await signedInPage();
    becomeVisible();
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    expect(dialog).toHaveTextContent(MESSAGES.LOGGED_OUT_BY_ADMIN);
  });

  it("ends the session when another tab removed the token", async () => {
    mockApi();
    storeSession();
    renderApp("/");
    await signedInPage();
    localStorage.removeItem("turnout_token");
    act(() => {
      window.dispatchEvent(new StorageEvent("storage", { key: "turnout_token", newValue: null }));
    });
    expect(await screen.findByRole("alertdialog", { name: "Session Ended" })).toBeInTheDocument();
  });

  it("shows the general not-authorized dialog for a 403", async () => {
    mockApi({ "GET /auth/profile": { status: 403, body: { success: false, message: "Forbidden" } } });
    storeSession();
    const { user } = renderApp("/");
    await signedInPage();
    becomeVisible();
    const dialog = await screen.findByRole("alertdialog", { name: "Not Authorized" });
    expect(dialog).toHaveTextContent(MESSAGES.NOT_AUTHORIZED);
    await user.click(within(dialog).getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(screen.getByRole("heading", { name: "Alerts" })).toBeInTheDocument();
  });
});

describe("sign out", () => {
  it("tells the server, clears token, user and agency, and shows login", async () => {
    const server = mockApi({ "POST /auth/logout": { body: { success: true } } });
    storeSession();
    const { user } = renderApp("/");
    await user.click(await screen.findByRole("button", { name: "User menu for Sam Taylor" }));
    // The open menu's code loads on its first opening.
    const menu = await screen.findByRole("menu");
    expect(menu).toHaveTextContent("+61412345678");
    await user.click(within(menu).getByRole("menuitem", { name: "Sign out" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(server.callsTo("POST /auth/logout")).toHaveLength(1);
    expect(server.callsTo("POST /auth/logout")[0]?.headers.get("Authorization")).toMatch(/^Bearer /);
    expect(localStorage.getItem("turnout_token")).toBeNull();
    expect(localStorage.getItem("turnout_user")).toBeNull();
    expect(localStorage.getItem("turnout_agency")).toBeNull();
  });

  it("signs out locally even when the server is unreachable", async () => {
    vi.stubGlobal("fetch", vi.fn().mockRejectedValue(new TypeError("offline")));
    storeSession();
    const { user } = renderApp("/");
    await user.click(await screen.findByRole("button", { name: "User menu for Sam Taylor" }));
    await user.click(await screen.findByRole("menuitem", { name: "Sign out" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(localStorage.getItem("turnout_token")).toBeNull();
  });
});
