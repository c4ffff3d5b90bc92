import { act, render, renderHook, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ReactNode } from "react";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { FakeLiveChannel } from "../../../testing/fake-live-channel";
import { mockApi } from "../../../testing/mock-api";
import { usePendingRuleCount } from "./index";
import { UserAlertsTab } from "./user-alerts-tab";

function reviewRule(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: "Structure fires",
    description: null,
    keywords: ["structure", "fire"],
    agencies: [2],
    agency_names: ["Country Fire Authority"],
    priority_levels: ["emergency"],
    status: "approved",
    is_active: true,
    rejection_reason: null,
    triggers_last_30_days: 4,
    user_id: 7,
    user: { id: 7, first_name: "Sam", last_name: "Taylor", phone: "+61412345678" },
    updated_at: "2026-11-20T08:00:00.000Z",
    ...overrides,
  };
}

const rules = [
  reviewRule(),
  reviewRule({
    id: 2,
    name: "Flood watch",
    keywords: ["flood"],
    agencies: [],
    agency_names: [],
    priority_levels: [],
    status: "pending",
    is_active: false,
    triggers_last_30_days: 0,
    user: { id: 8, first_name: "Alex", last_name: "Ng", phone: "+61498765432" },
  }),
  reviewRule({
    id: 3,
    name: "Too broad",
    keywords: ["the"],
    status: "rejected",
    rejection_reason: "Matches all",
  }),
];

function fakeServer() {
  return mockApi({
    "GET /admin/user-alerts": { body: { success: true, data: rules } },
    "GET /admin/user-alerts/stats/overview": {
      body: { success: true, data: { overview: { pending_alerts: 1 } } },
    },
    "POST /admin/user-alerts/*": (request) => ({
      body: { success: true, message: `Done: ${request.path}`, data: {} },
    }),
  });
}

// Typing into dialogs on a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

function renderTab() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <UserAlertsTab />
    </AppProviders>,
  );
  return user;
}

async function cardOf(name: string) {
  return screen.findByRole("listitem", { name });
}

describe("UserAlertsTab", () => {
  it("lists pending rules first with owner, keywords, agencies, types and recent triggers", async () => {
    fakeServer();
    renderTab();

    const list = await screen.findByRole("list", { name: "Alert rules" });
    const names = within(list)
      .getAllByRole("heading", { level: 3 })
      .map((heading) => heading.textContent);
    expect(names).toEqual(["Flood watch", "Structure fires", "Too broad"]);

    const flood = await cardOf("Flood watch");
    expect(within(flood).getByText("Pending review")).toBeInTheDocument();
    expect(within(flood).getByText("Owner: Alex Ng (+61498765432)")).toBeInTheDocument();
    expect(within(flood).getByText("Agencies: All · Message types: All")).toBeInTheDocument();
    expect(within(flood).getByText("0 triggers in the last 30 days")).toBeInTheDocument();

    const fires = await cardOf("Structure fires");
    expect(within(fires).getByText("Keywords: structure, fire")).toBeInTheDocument();
    expect(
      within(fires).getByText("Agencies: Country Fire Authority · Message types: Emergency"),
    ).toBeInTheDocument();
    expect(within(fires).getByText("4 triggers in the last 30 days")).toBeInTheDocument();
    expect(within(await cardOf("Too broad")).getByText("Rejection reason: Matches all")).toBeInTheDocument();
    expect(await screen.findByText("1 waiting for review")).toBeInTheDocument();
  });

  it("asks the server for one status when filtered", async () => {
    const server = fakeServer();
    const user = renderTab();
    await cardOf("Flood watch");

    await user.click(screen.getByRole("combobox", { name: "Status" }));
    await user.click(screen.getByRole("option", { name: "Pending review" }));

    await waitFor(() =>
      expect(server.callsTo("GET /admin/user-alerts").map((call) => call.query.get("status"))).toEqual([
        null,
        "pending",
      ]),
    );
  });

  it("approves a pending rule and suspends an approved one, showing the server's answer", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(within(await cardOf("Flood watch")).getByRole("button", { name: "Approve" }));
    expect(await screen.findByText("Done: /admin/user-alerts/2/approve")).toBeInTheDocument();

    await user.click(within(await cardOf("Structure fires")).getByRole("button", { name: "Suspend" }));
    await waitFor(() => expect(server.callsTo("POST /admin/user-alerts/1/suspend")).toHaveLength(1));
    expect(server.callsTo("POST /admin/user-alerts/2/approve")).toHaveLength(1);
    // The list and the badge are asked again after each decision.
    await waitFor(() => expect(server.callsTo("GET /admin/user-alerts").length).toBeGreaterThanOrEqual(3));
  });

  it("rejects only with a reason and sends that reason", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(within(await cardOf("Flood watch")).getByRole("button", { name: "Reject" }));
    const dialog = await screen.findByRole("dialog", { name: "Reject Alert Rule" });
    await user.click(within(dialog).getByRole("button", { name: "Reject" }));
    expect(within(dialog).getByText("A reason is required.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/user-alerts/2/reject")).toHaveLength(0);

    await user.click(within(dialog).getByRole("textbox", { name: /Reason/ }));
    await user.paste("  Keyword too common ");
    await user.click(within(dialog).getByRole("button", { name: "Reject" }));

    await waitFor(() =>
      expect(server.callsTo("POST /admin/user-alerts/2/reject").map((call) => call.body)).toEqual([
        { reason: "Keyword too common" },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Reject Alert Rule" })).toBeNull());
  });

  it("checks one rule's matches on demand, showing the count and the newest messages", async () => {
    const server = fakeServer();
    server.on("GET /admin/user-alerts/1/preview", {
      body: {
        success: true,
        data: {
          total_matches: 12,
          total_matches_capped: false,
          sample_messages: [
            {
              agency_name: "Country Fire Authority",
              created_at: "2026-11-20T08:00:00.000Z",
              message: "ALERT STRUCTURE FIRE NORTHCOTE",
            },
            { agency_name: null, created_at: "2026-11-19T08:00:00.000Z", message: "STRUCTURE FIRE PRESTON" },
          ],
        },
      },
    });
    server.on("GET /admin/user-alerts/2/preview", {
      body: { success: true, data: { total_matches: 1000, total_matches_capped: true, sample_messages: [] } },
    });
    const user = renderTab();
    const fires = await cardOf("Structure fires");
    // Loading the list counts nothing: each count is a query over the alerts.
    expect(server.requests.filter((r) => r.path.endsWith("/preview"))).toHaveLength(0);

    await user.click(within(fires).getByRole("button", { name: "Check matches" }));
    const matches = await within(fires).findByRole("region", { name: "Matches of Structure fires" });
    expect(await within(matches).findByText("12 matching messages in the last 3 months")).toBeInTheDocument();
    const samples = within(matches).getByRole("list", { name: "Newest matches" });
    const items = within(samples).getAllByRole("listitem");
    expect(items.map((item) => within(item).getByText(/STRUCTURE FIRE/).textContent)).toEqual([
      "ALERT STRUCTURE FIRE NORTHCOTE",
      "STRUCTURE FIRE PRESTON",
    ]);
    expect(within(items[0]!).getByText(/^Country Fire Authority · /)).toBeInTheDocument();
    expect(within(items[1]!).getByText(/^Unknown agency · /)).toBeInTheDocument();

    const flood = await cardOf("Flood watch");
    await user.click(within(flood).getByRole("button", { name: "Check matches" }));
    expect(
      await within(flood).findByText("More than 1000 matching messages in the last 3 months"),
    ).toBeInTheDocument();
    expect(server.callsTo("GET /admin/user-alerts/1/preview")).toHaveLength(1);
    expect(server.callsTo("GET /admin/user-alerts/2/preview")).toHaveLength(1);
    expect(server.callsTo("GET /admin/user-alerts/3/preview")).toHaveLength(0);

    await user.click(within(fires).getByRole("button", { name: "Hide matches" }));
    expect(within(fires).queryByRole("region", { name: "Matches of Structure fires" })).toBeNull();
  });

  it("shows why a match check failed and tries again on Retry", async () => {
    const server = fakeServer();
    server.on("GET /admin/user-alerts/1/preview", {
      status: 404,
      body: { success: false, message: "Alert rule not found.", errorType: "not_found" },
    });
    const user = renderTab();
    const fires = await cardOf("Structure fires");
    await user.click(within(fires).getByRole("button", { name: "Check matches" }));
    expect(await within(fires).findByText("Alert rule not found.")).toBeInTheDocument();

    server.on("GET /admin/user-alerts/1/preview", {
      body: { success: true, data: { total_matches: 1, sample_messages: [] } },
    });
    await user.click(within(fires).getByRole("button", { name: "Retry" }));
    expect(await within(fires).findByText("1 matching message in the last 3 months")).toBeInTheDocument();
  });

  it("shows the server's refusal of a decision", async () => {
    const server = fakeServer();
    server.on("POST /admin/user-alerts/1/suspend", {
      status: 409,
      body: { success: false, message: "This alert rule is already suspended.", errorType: "conflict" },
    });
    const user = renderTab();

    await user.click(within(await cardOf("Structure fires")).getByRole("button", { name: "Suspend" }));
    expect(await screen.findByText("This alert rule is already suspended.")).toBeInTheDocument();
  });
});

describe("usePendingRuleCount", () => {
  function wrapper({ children }: { children: ReactNode }) {
    return <AppProviders queryClient={createQueryClient()}>{children}</AppProviders>;
  }

  it("reads the stats overview, then follows the live user-alerts:pending event", async () => {
    fakeServer();
    const { result } = renderHook(() => usePendingRuleCount(), { wrapper });
    await waitFor(() => expect(result.current).toBe(1));

    const channel = new FakeLiveChannel(
      { userId: 1, isAdmin: true },
      { onState: () => {}, onNewAlert: () => {} },
    );
    act(() => channel.serverEmit("user-alerts:pending", { pending_alerts: 12 }));
    await waitFor(() => expect(result.current).toBe(12));

    // A payload without a count leaves the badge alone.
    act(() => channel.serverEmit("user-alerts:pending", { pending_alerts: "many" }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(result.current).toBe(12);
  });

  it("reads the count again once the page is in the admins' room again (news of a drop may be missed)", async () => {
    const server = fakeServer();
    const { result } = renderHook(() => usePendingRuleCount(), { wrapper });
    await waitFor(() => expect(result.current).toBe(1));
    server.on("GET /admin/user-alerts/stats/overview", {
      body: { success: true, data: { overview: { pending_alerts: 3 } } },
    });
    const channel = new FakeLiveChannel(
      { userId: 1, isAdmin: true },
      { onState: () => {}, onNewAlert: () => {} },
    );
    act(() => channel.serverEmit("joined-admin", { success: true }));
    await waitFor(() => expect(result.current).toBe(3));
  });
});
