import { screen, waitFor } from "@testing-library/react";
import { mockApi } from "../testing/mock-api";
import { currentLocation, renderApp } from "../testing/render-app";
import { makeToken, storeSession } from "../testing/session-fixtures";

describe("routes", () => {
  beforeEach(() => {
    mockApi();
  });

  // While the scripts load, index.html shows 'Loading Turnout' (e2e/foundation.test.ts holds the
  // scripts back to see it); the stored session is read synchronously, so the app itself goes
  // straight on to the login screen.
  it("shows the login screen once started, with no loading state left", async () => {
    renderApp("/");
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(screen.queryByText("Loading Turnout")).not.toBeInTheDocument();
  });

  it("rewrites /j/{digits} to /?job={digits}", async () => {
    renderApp("/j/123");
    await screen.findByRole("heading", { name: "Sign In" });
    expect(currentLocation()).toEqual({ pathname: "/", search: "?job=123" });
  });

  it("does not rewrite a non-digit job id: it goes home without a job", async () => {
    renderApp("/j/abc");
    await screen.findByRole("heading", { name: "Sign In" });
    expect(currentLocation()).toEqual({ pathname: "/", search: "" });
  });

  it("sends any other path to /", async () => {
    renderApp("/nowhere/at/all");
    await screen.findByRole("heading", { name: "Sign In" });
    expect(currentLocation().pathname).toBe("/");
  });

  it("shows the login screen at /login", async () => {
    renderApp("/login");
    expect(await screen.findByRole("button", { name: "Send Code" })).toBeInTheDocument();
    expect(currentLocation().pathname).toBe("/login");
  });

  it("shows the keyboard debug page at /?debug=keyboard", async () => {
    renderApp("/?debug=keyboard");
    expect(await screen.findByRole("heading", { name: "Keyboard Debug" })).toBeInTheDocument();
  });

  it("loads the installable-app debug page on demand at /?debug=pwa", async () => {
    renderApp("/?debug=pwa");
    expect(await screen.findByRole("heading", { name: "Installable App Debug" })).toBeInTheDocument();
    expect(await screen.findByRole("rowheader", { name: "Manifest link" })).toBeInTheDocument();
    expect(screen.getByRole("rowheader", { name: "Service worker supported" })).toBeInTheDocument();
  });

  it("shows the dashboard for a valid stored session and keeps ?job", async () => {
    storeSession();
    renderApp("/?job=42");
    // The job popup opens over the dashboard (no such alert in this mock, so it says why).
    expect(await screen.findByRole("dialog", { name: "Unable to Load Message" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Alerts", hidden: true })).toBeInTheDocument();
    expect(
      screen.getByRole("button", { name: "User menu for Sam Taylor", hidden: true }),
    ).toBeInTheDocument();
    expect(currentLocation().search).toBe("?job=42");
  });

  it("sends a signed-in visitor of /login home", async () => {
    storeSession();
    renderApp("/login");
    await screen.findByRole("heading", { name: "Alerts" });
    expect(currentLocation().pathname).toBe("/");
  });

  it("accepts a stored session whose agency is null (a user without an agency)", async () => {
    storeSession({ agency: null });
    renderApp("/");
    expect(await screen.findByRole("heading", { name: "Alerts" })).toBeInTheDocument();
  });

  it("shows 'Session Ended' at startup when the stored token is about to expire", async () => {
    storeSession({ token: makeToken(120) });
    renderApp("/");
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    expect(dialog).toHaveTextContent("Your session has expired. Please log in again.");
  });

  it("clears an unreadable stored session at startup", async () => {
    storeSession();
    localStorage.setItem("turnout_user", "{not json");
    renderApp("/");
    await screen.findByRole("heading", { name: "Sign In" });
    await waitFor(() => expect(localStorage.getItem("turnout_token")).toBeNull());
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
  });
});
