import { screen } from "@testing-library/react";
import { MESSAGES } from "@turnout/domain";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage } from "./alert-fixtures";

// The live channel's client (socket.io) is fetched beside the feed's first render; here that fetch
// fails, as it does offline after a release replaced the file.
vi.mock("../../api/live-socket", () => {
  throw new TypeError("Failed to fetch dynamically imported module");
});

describe("the live client cannot be fetched", { timeout: 15_000 }, () => {
  it("shows the feed and says live updates failed, with Reconnect", async () => {
    mockApi({ "GET /health": { body: { status: "ok" } }, "GET /alerts/search": feedPage([]) });
    storeSession();
    renderApp("/");
    await screen.findByText(MESSAGES.NO_ALERTS);
    expect(
      await screen.findByText("Live updates failed. New alerts will not appear until you reconnect."),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reconnect" })).toBeEnabled();
  });
});
