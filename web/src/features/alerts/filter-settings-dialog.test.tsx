import { act, screen, waitFor, within } from "@testing-library/react";
import { FILTERS_SAVED_POPUP_MS, MESSAGES } from "@turnout/domain";
import { latestLiveChannel, liveChannelOpened } from "../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "./alert-fixtures";

const agencies = {
  body: {
    success: true,
    data: [
      { filter_value: "2", name: "Country Fire Authority", code: "CFA" },
      { filter_value: "3", name: "State Emergency Service", code: "SES" },
    ],
  },
};

function savedFilters(rows: Array<{ filter_value: string; is_enabled: boolean }>) {
  return {
    body: {
      success: true,
      data: rows.map((row, index) => ({ id: index + 1, user_id: 7, filter_type: "agency", ...row })),
    },
  };
}

async function openSettings(routes: Record<string, MockRoute>) {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([makeGroup(makeAlert())]),
    "GET /user-filters/available": agencies,
    "GET /user-filters": savedFilters([]),
    ...routes,
  });
  storeSession();
  const rendered = renderApp("/");
  // The first test of a file waits for the lazily loaded dashboard's cold transform too: over a
  // second when the machine is busy, so longer than findBy's default.
  await screen.findAllByRole("article", {}, { timeout: 5_000 });
  await rendered.user.click(screen.getByRole("button", { name: "Alert filter settings" }));
  const dialog = await screen.findByRole("dialog", { name: "Alert Filter Settings" });
  return { server, dialog, ...rendered };
}

describe("alert filter settings", { timeout: 15_000 }, () => {
  it("cycles an agency default -> hidden -> shown -> hidden, held until saved", async () => {
    const { dialog, user, server } = await openSettings({});
    const cfa = await within(dialog).findByRole("button", { name: /^Country Fire Authority:/ });
    expect(cfa).toHaveAccessibleName("Country Fire Authority: Shown (default)");
    await user.click(cfa);
    expect(cfa).toHaveAccessibleName("Country Fire Authority: Hidden, not saved yet");
    await user.click(cfa);
    expect(cfa).toHaveAccessibleName("Country Fire Authority: Shown, not saved yet");
    await user.click(cfa);
    expect(cfa).toHaveAccessibleName("Country Fire Authority: Hidden, not saved yet");
    expect(server.callsTo("POST /user-filters/bulk")).toHaveLength(0);
  });

  it("reads saved rows as shown and hidden, and a click on a hidden agency shows it", async () => {
    const { dialog, user } = await openSettings({
      "GET /user-filters": savedFilters([
        { filter_value: "2", is_enabled: true },
        { filter_value: "3", is_enabled: false },
      ]),
    });
    expect(
      await within(dialog).findByRole("button", { name: "Country Fire Authority: Shown" }),
    ).toBeVisible();
    const ses = within(dialog).getByRole("button", { name: "State Emergency Service: Hidden" });
    await user.click(ses);
    expect(ses).toHaveAccessibleName("State Emergency Service: Shown, not saved yet");
  });

  it("asks before closing with unsaved changes, and closes at once without them", async () => {
    const { dialog, user } = await openSettings({});
    await user.click(await within(dialog).findByRole("button", { name: /^Country Fire Authority:/ }));
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Discard changes?" });
    await user.click(within(confirm).getByRole("button", { name: "Keep Editing" }));
    expect(await screen.findByRole("dialog", { name: "Alert Filter Settings" })).toBeInTheDocument();
    expect(
      within(dialog).getByRole("button", { name: /^Country Fire Authority: Hidden/ }),
    ).toBeInTheDocument();

    await user.keyboard("{Escape}");
    await user.click(
      within(await screen.findByRole("alertdialog", { name: "Discard changes?" })).getByRole("button", {
        name: "Discard Changes",
      }),
    );
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Alert Filter Settings" })).not.toBeInTheDocument(),
    );

    await user.click(await screen.findByRole("button", { name: "Alert filter settings" }));
    const reopened = await screen.findByRole("dialog", { name: "Alert Filter Settings" });
    expect(
      await within(reopened).findByRole("button", { name: "Country Fire Authority: Shown (default)" }),
    ).toBeVisible();
    await user.click(within(reopened).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
  });

  it("saves every non-default choice in one call, shows 'saved' for 3 seconds, refetches and rejoins", async () => {
    const { dialog, user, server } = await openSettings({
      "GET /user-filters": savedFilters([{ filter_value: "3", is_enabled: false }]),
      "POST /user-filters/bulk": { body: { success: true, message: "Filter settings saved.", data: [] } },
    });
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    const searchesBefore = server.callsTo("GET /alerts/search").length;
    await user.click(await within(dialog).findByRole("button", { name: /^Country Fire Authority:/ }));
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    expect(await screen.findByText("Filter settings saved")).toBeInTheDocument();
    expect(server.callsTo("POST /user-filters/bulk")[0]?.body).toEqual({
      filters: [
        { filter_type: "agency", filter_value: "2", is_enabled: false },
        { filter_type: "agency", filter_value: "3", is_enabled: false },
      ],
    });
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Alert Filter Settings" })).not.toBeInTheDocument(),
    );
    await waitFor(() => expect(server.callsTo("GET /alerts/search").length).toBeGreaterThan(searchesBefore));
    expect(latestLiveChannel().emitted.filter((e) => e.event === "join-user-agencies")).toHaveLength(2);

    act(() => vi.advanceTimersByTime(FILTERS_SAVED_POPUP_MS - 100));
    expect(screen.getByText("Filter settings saved")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    await waitFor(() => expect(screen.queryByText("Filter settings saved")).not.toBeInTheDocument());
  });

  it("shows the server's reason when saving fails, else 'Failed to save filter settings'", async () => {
    let reply: { status: number; body?: unknown } = {
      status: 400,
      body: { success: false, message: "That agency is not one of yours." },
    };
    const { dialog, user } = await openSettings({ "POST /user-filters/bulk": () => reply });
    await user.click(await within(dialog).findByRole("button", { name: /^Country Fire Authority:/ }));
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("That agency is not one of yours.")).toBeInTheDocument();
    reply = { status: 500 };
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText(MESSAGES.FILTERS_SAVE_FAILED)).toBeInTheDocument();
  });

  it("says 'Failed to load filter settings' with Retry", async () => {
    const { dialog } = await openSettings({
      "GET /user-filters/available": { status: 404, body: { success: false } },
    });
    expect(await within(dialog).findByText(MESSAGES.FILTERS_LOAD_FAILED)).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Retry" })).toBeInTheDocument();
  });
});

describe("a feed with no agency to show", { timeout: 15_000 }, () => {
  const serverWarning =
    "You are not assigned to any agency yet, so no alerts will arrive. Ask an administrator.";

  function joinWithNoAgency(routes: Record<string, MockRoute>) {
    const server = mockApi({
      "GET /health": { body: { status: "ok" } },
      "GET /alerts/search": feedPage([]),
      ...routes,
    });
    storeSession();
    const rendered = renderApp("/");
    return { server, ...rendered };
  }

  async function serverJoinsNoAgency() {
    // The dashboard is a lazy chunk: its first load can take a while on a busy machine.
    await screen.findByText(MESSAGES.NO_ALERTS, {}, { timeout: 5_000 });
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.serverEmit("joined-user-agencies", { agencies: [], warning: serverWarning }));
  }

  it("tells a user whose filters hide every agency so, and opens the settings to change it", async () => {
    const { user } = joinWithNoAgency({
      "GET /user-filters/available": agencies,
      "GET /user-filters": savedFilters([
        { filter_value: "2", is_enabled: false },
        { filter_value: "3", is_enabled: false },
      ]),
    });
    await serverJoinsNoAgency();

    const notice = await screen.findByText(/Your alert filters hide every agency you belong to/);
    expect(screen.queryByText(/not assigned to any agency/)).not.toBeInTheDocument();
    await user.click(
      within(notice.closest("[role=alert]") as HTMLElement).getByRole("button", {
        name: "Open filter settings",
      }),
    );
    const dialog = await screen.findByRole("dialog", { name: "Alert Filter Settings" });
    expect(
      await within(dialog).findByRole("button", { name: "Country Fire Authority: Hidden" }),
    ).toBeInTheDocument();
  });

  it("keeps 'not assigned' for a user with no agency at all", async () => {
    joinWithNoAgency({
      "GET /user-filters/available": { body: { success: true, data: [] } },
      "GET /user-filters": savedFilters([]),
    });
    await serverJoinsNoAgency();
    expect(await screen.findByText(serverWarning)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Open filter settings" })).not.toBeInTheDocument();
  });
});
