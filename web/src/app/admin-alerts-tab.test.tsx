import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MESSAGES } from "@turnout/domain";
import { publishLiveEvent } from "../api/live-events";
import { CAPCODE_ASSIGNED_POPUP_MS } from "../features/admin/agencies/capcode-assign-dialog";
import { feedPage, makeAlert, makeGroup } from "../features/alerts/alert-fixtures";
import { type MockRoute, mockApi } from "../testing/mock-api";
import { storeSession, testUser } from "../testing/session-fixtures";
import { AlertsTab } from "./admin-console-page";
import { AppProviders, createQueryClient } from "./providers";

const agencies = {
  body: {
    success: true,
    data: [
      {
        id: 2,
        name: "Country Fire Authority",
        code: "CFA",
        logo_path: null,
        capcode_count: 3,
        user_count: 9,
      },
      {
        id: 9,
        name: "Unmapped Capcodes",
        code: "UNMAPPED",
        logo_path: null,
        capcode_count: 1,
        user_count: 0,
      },
    ],
  },
};
const unmappedAlert = makeAlert({
  id: 501,
  capcode: "1234567",
  agency_id: 9,
  agency_name: "Unmapped Capcodes",
  agency_code: "UNMAPPED",
  message: "@@ALERT F250000501 GRASS FIRE KANGAROO FLAT",
});
const mappedAlert = makeAlert({ id: 500, capcode: "0123456" });
const unmappedList = {
  body: {
    success: true,
    data: [
      {
        id: 77,
        capcode: "1234567",
        agency_id: 9,
        alias: null,
        area: null,
        message_count: 4,
        last_seen: null,
      },
    ],
  },
};

function renderTab(routes: Record<string, MockRoute>, options: { fakeTimers?: boolean } = {}) {
  const server = mockApi({
    "GET /alerts/search": feedPage([makeGroup(unmappedAlert), makeGroup(mappedAlert)]),
    "GET /admin/agencies": agencies,
    "GET /admin/capcodes/unmapped": unmappedList,
    ...routes,
  });
  storeSession({ user: { ...testUser, is_admin: true } });
  const user = userEvent.setup(options.fakeTimers ? { advanceTimers: vi.advanceTimersByTime } : {});
  render(
    <AppProviders queryClient={createQueryClient()}>
      <AlertsTab />
    </AppProviders>,
  );
  return { server, user };
}

async function openAssignDialog(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole("button", { name: "Assign capcode 1234567" }));
  const dialog = await screen.findByRole("dialog", { name: "Assign Capcode 1234567" });
  await waitFor(() =>
    expect(within(dialog).getByRole("option", { name: /Country Fire Authority/ })).toBeInTheDocument(),
  );
  return dialog;
}

describe("admin alerts tab", { timeout: 15_000 }, () => {
  afterEach(() => vi.useRealTimers());

  it("asks for the feed in admin context and shows each card's capcode", async () => {
    const { server } = renderTab({});
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    expect(server.callsTo("GET /alerts/search")[0]?.query.get("admin_context")).toBe("true");
    const [unmapped, mapped] = screen.getAllByRole("article");
    expect(within(unmapped!).getByLabelText("Capcode 1234567")).toHaveTextContent("1234567");
    expect(within(mapped!).getByLabelText("Capcode 0123456")).toHaveTextContent("0123456");
    // Only a capcode no agency has yet is offered for assignment.
    expect(within(unmapped!).getByRole("button", { name: "Assign capcode 1234567" })).toBeVisible();
    expect(within(mapped!).queryByRole("button", { name: /Assign capcode/ })).not.toBeInTheDocument();
  });

  it("adds a new alert of any agency that arrives on the page's live channel", async () => {
    renderTab({});
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    const fresh = makeAlert({ id: 502, capcode: "7654321", message: "@@ALERT F250000502 NEW LIVE JOB" });
    act(() => publishLiveEvent("new-alert", fresh));
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(3));
    expect(screen.getByText(/NEW LIVE JOB/)).toBeInTheDocument();
  });

  it.each([
    ["the server has put the page in the admins' room", "joined-admin", "10"],
    ["a burst the server folded into one refresh has settled", "burst-settled", "50"],
  ] as const)("reads its first page again once %s, and adds what it missed", async (_, event, limit) => {
    const { server } = renderTab({});
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    const missed = makeAlert({ id: 503, capcode: "7654321", message: "@@ALERT F250000503 NOT SENT LIVE" });
    server.on(
      "GET /alerts/search",
      feedPage([makeGroup(missed), makeGroup(unmappedAlert), makeGroup(mappedAlert)]),
    );
    act(() => publishLiveEvent(event, event === "joined-admin" ? { success: true } : null));
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(3));
    expect(screen.getByText(/NOT SENT LIVE/)).toBeInTheDocument();
    const reads = server.callsTo("GET /alerts/search");
    expect(reads).toHaveLength(2);
    expect(reads[1]?.query.get("admin_context")).toBe("true");
    expect(reads[1]?.query.get("limit")).toBe(limit);
  });

  it("searches in admin context from the search modal", async () => {
    const { server, user } = renderTab({});
    await user.click(await screen.findByRole("button", { name: "Search messages" }));
    const dialog = await screen.findByRole("dialog");
    await user.type(within(dialog).getByRole("textbox"), "grass fire{Enter}");
    await waitFor(() =>
      expect(
        server.callsTo("GET /alerts/search").some((call) => call.query.get("search") === "grass fire"),
      ).toBe(true),
    );
    const searched = server.callsTo("GET /alerts/search").find((call) => call.query.get("search"));
    expect(searched?.query.get("admin_context")).toBe("true");
    expect(screen.getByText("Search: grass fire")).toBeInTheDocument();
  });

  it("filters by a card's agency, UNMAPPED included, still in admin context, and clears the filter", async () => {
    const { server, user } = renderTab({});
    await user.click(await screen.findByRole("button", { name: "Show only Unmapped Capcodes alerts" }));
    await waitFor(() =>
      expect(server.callsTo("GET /alerts/search").some((call) => call.query.get("agency_id") === "9")).toBe(
        true,
      ),
    );
    const filtered = server.callsTo("GET /alerts/search").find((call) => call.query.get("agency_id") === "9");
    expect(filtered?.query.get("admin_context")).toBe("true");
    expect(screen.getByText("Agency: Unmapped Capcodes")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Clear All" }));
    expect(screen.queryByText("Agency: Unmapped Capcodes")).not.toBeInTheDocument();
  });

  it("refuses to assign without an agency, and leaves the alias optional", async () => {
    const { server, user } = renderTab({});
    const dialog = await openAssignDialog(user);
    expect(within(dialog).getByText(MESSAGES.CAPCODE_ALIAS_HINT)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Assign" }));
    expect(within(dialog).getByText("Choose the agency this capcode belongs to")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/capcodes/77/assign")).toHaveLength(0);
    // UNMAPPED is where the capcode is, not somewhere to assign it.
    expect(within(dialog).queryByRole("option", { name: /Unmapped/ })).not.toBeInTheDocument();
  });

  it("assigns with agency and alias, says so naming both, reloads the feed and closes after 3 s", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let assigned = false;
    const { server, user } = renderTab(
      {
        "POST /admin/capcodes/77/assign": () => {
          assigned = true;
          return { body: { success: true, message: "Capcode assigned.", data: { moved_alerts: 4 } } };
        },
        "GET /alerts/search": () =>
          feedPage([
            makeGroup(
              assigned
                ? {
                    ...unmappedAlert,
                    agency_id: 2,
                    agency_name: "Country Fire Authority",
                    agency_code: "CFA",
                  }
                : unmappedAlert,
            ),
          ]),
      },
      { fakeTimers: true },
    );
    const dialog = await openAssignDialog(user);
    await user.selectOptions(within(dialog).getByRole("combobox", { name: "Agency" }), "2");
    await user.type(within(dialog).getByRole("textbox", { name: "Alias" }), "Kangaroo Flat FB");
    await user.click(within(dialog).getByRole("button", { name: "Assign" }));

    const success = await screen.findByRole("dialog", { name: MESSAGES.CAPCODE_ASSIGNED_TITLE });
    expect(success).toHaveTextContent(
      "Capcode 1234567 (Kangaroo Flat FB) is now assigned to Country Fire Authority.",
    );
    expect(server.callsTo("POST /admin/capcodes/77/assign")[0]?.body).toEqual({
      agency_id: 2,
      alias: "Kangaroo Flat FB",
    });
    // The capcode's earlier alerts moved: the card behind the popup now reads as the agency's, with
    // nothing left to assign.
    await waitFor(() =>
      expect(screen.getByRole("article", { hidden: true })).toHaveAccessibleName(
        /from Country Fire Authority/,
      ),
    );
    expect(screen.queryByRole("button", { name: /Assign capcode/, hidden: true })).not.toBeInTheDocument();

    act(() => vi.advanceTimersByTime(CAPCODE_ASSIGNED_POPUP_MS - 100));
    expect(screen.getByRole("dialog", { name: MESSAGES.CAPCODE_ASSIGNED_TITLE })).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: MESSAGES.CAPCODE_ASSIGNED_TITLE })).not.toBeInTheDocument(),
    );
  });

  it("shows 'Assignment Failed' with the server's reason", async () => {
    const { user } = renderTab({
      "POST /admin/capcodes/77/assign": {
        status: 404,
        body: { success: false, message: "Agency not found", errorType: "not_found" },
      },
    });
    const dialog = await openAssignDialog(user);
    fireEvent.change(within(dialog).getByRole("combobox", { name: "Agency" }), { target: { value: "2" } });
    await user.click(within(dialog).getByRole("button", { name: "Assign" }));
    const failure = await screen.findByRole("dialog", { name: MESSAGES.CAPCODE_ASSIGN_TITLE });
    expect(failure).toHaveTextContent("Failed to capcode: Agency not found");
  });
});
