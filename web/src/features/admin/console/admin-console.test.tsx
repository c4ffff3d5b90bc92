import { screen, waitFor, within } from "@testing-library/react";
import { MESSAGES } from "@turnout/domain";
import type { SessionUser } from "../../../api/types";
import { adminRoutes, adminUser, DESKTOP_UA, IPHONE_UA } from "../../../testing/admin/admin-fixtures";
import { fakeLiveChannels, latestLiveChannel, liveChannelOpened } from "../../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../../testing/mock-api";
import { currentLocation, renderApp } from "../../../testing/render-app";
import { storeSession, testUser } from "../../../testing/session-fixtures";
import { ADMIN_TABS } from "./admin-tabs";

// The dashboard and the console are lazy chunks: on a busy machine their first load takes seconds.

function signedIn(
  path: string,
  {
    user = adminUser,
    userAgent = DESKTOP_UA,
    routes = {},
  }: { user?: SessionUser; userAgent?: string; routes?: Record<string, MockRoute> } = {},
) {
  vi.spyOn(navigator, "userAgent", "get").mockReturnValue(userAgent);
  const server = mockApi(adminRoutes(routes));
  storeSession({ user });
  return { server, ...renderApp(path) };
}

async function openUserMenu(user: ReturnType<typeof renderApp>["user"], name = "Alex Admin") {
  await user.click(await screen.findByRole("button", { name: `User menu for ${name}` }));
  return screen.findByRole("menu");
}

const emittedEvents = () => latestLiveChannel().emitted.map((entry) => entry.event);

describe("admin console", { timeout: 20_000 }, () => {
  it("opens from the user menu's 'Admin' for an admin on a desktop browser and leaves with 'Back to Alerts'", async () => {
    const { user } = signedIn("/");
    await screen.findByRole("heading", { name: "Alerts" });
    (await liveChannelOpened()).connect();
    const menu = await openUserMenu(user);
    await user.click(within(menu).getByRole("menuitem", { name: "Admin" }));

    expect(await screen.findByRole("heading", { level: 1, name: "Admin Console" })).toBeInTheDocument();
    expect(currentLocation().pathname).toBe("/admin/system");
    expect(screen.getByRole("tab", { name: "System Monitor" })).toHaveAttribute("aria-selected", "true");
    expect(await screen.findByRole("heading", { name: "System Health" })).toBeInTheDocument();
    expect(emittedEvents()).toEqual(["join-user-agencies", "join-admin"]);

    const consoleMenu = await openUserMenu(user);
    await user.click(within(consoleMenu).getByRole("menuitem", { name: "Back to Alerts" }));
    expect(currentLocation().pathname).toBe("/");
    expect(screen.queryByRole("heading", { name: "Admin Console" })).not.toBeInTheDocument();
    expect(emittedEvents()).toEqual(["join-user-agencies", "join-admin", "leave-admin"]);
    // One connection throughout: the feed's channel carries the admin room too.
    expect(fakeLiveChannels).toHaveLength(1);
  });

  it("lands an admin with no agency in the console, and the header's admin toggle goes both ways", async () => {
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(DESKTOP_UA);
    mockApi(adminRoutes({}));
    storeSession({ user: adminUser, agency: null });
    const { user } = renderApp("/");
    expect(await screen.findByRole("heading", { level: 1, name: "Admin Console" })).toBeInTheDocument();
    expect(currentLocation().pathname).toBe("/admin/system");
    await user.click(screen.getByRole("button", { name: "Back to Alerts" }));
    expect(await screen.findByRole("heading", { name: "Alerts" })).toBeInTheDocument();
    // Back in the alerts, it stays there; the header's toggle reads 'Admin'.
    expect(currentLocation().pathname).toBe("/");
    await user.click(screen.getByRole("button", { name: "Admin" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Admin Console" })).toBeInTheDocument();
  });

  it("opens a job's address for an admin with no agency rather than the console", async () => {
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(DESKTOP_UA);
    mockApi(adminRoutes({}));
    storeSession({ user: adminUser, agency: null });
    renderApp("/?job=4711");
    await screen.findByRole("dialog", { name: /^(Job #4711|Unable to Load Message)$/ });
    expect(currentLocation().pathname).toBe("/");
  });

  it("leaves the console with the header's 'Back to Alerts' button too", async () => {
    const { user } = signedIn("/admin/system");
    await user.click(await screen.findByRole("button", { name: "Back to Alerts" }));
    expect(currentLocation().pathname).toBe("/");
    expect(await screen.findByRole("heading", { name: "Alerts" })).toBeInTheDocument();
  });

  it("joins the admin room on every connect while open, not before", async () => {
    signedIn("/admin/users");
    await screen.findByRole("heading", { name: "Admin Console" });
    const channel = await liveChannelOpened();
    expect(channel.emitted).toEqual([]);
    channel.connect();
    channel.drop();
    channel.connect();
    expect(emittedEvents()).toEqual(["join-user-agencies", "join-admin", "join-user-agencies", "join-admin"]);
  });

  it("has no 'Admin' item for an admin on a phone, and a console address shows the alerts there", async () => {
    const { user } = signedIn("/", { userAgent: IPHONE_UA });
    const menu = await openUserMenu(user);
    expect(within(menu).getByRole("menuitem", { name: "My Alerts" })).toBeInTheDocument();
    expect(within(menu).queryByRole("menuitem", { name: /Admin/ })).not.toBeInTheDocument();
  });

  it("sends an admin on a phone from a console address to the alerts", async () => {
    signedIn("/admin/system", { userAgent: IPHONE_UA });
    await waitFor(() => expect(currentLocation().pathname).toBe("/"));
    expect(await screen.findByRole("heading", { name: "Alerts" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Admin Console" })).not.toBeInTheDocument();
  });

  it("gives each tab (SPEC's nine, Receivers from issue 33, Displays from issue 34), in order, its own address, each with its content", async () => {
    const { user } = signedIn("/admin/system");
    const tabs = await screen.findAllByRole("tab");
    expect(tabs.map((tab) => tab.textContent)).toEqual([
      "System Monitor",
      "Receivers",
      "Users",
      "Alerts",
      "Agencies",
      "User Alerts",
      "SMS",
      "Message Grouping",
      "Feedback",
      "Security",
      "Displays",
    ]);
    for (const tab of ADMIN_TABS.slice(1)) {
      await user.click(screen.getByRole("tab", { name: tab.label }));
      expect(currentLocation().pathname).toBe(`/admin/${tab.slug}`);
      expect(screen.getByRole("tab", { name: tab.label })).toHaveAttribute("aria-selected", "true");
      const panel = screen.getByRole("tabpanel");
      expect(await within(panel).findAllByRole("heading", { level: 2 })).not.toHaveLength(0);
    }
    await user.click(screen.getByRole("tab", { name: "System Monitor" }));
    expect(currentLocation().pathname).toBe("/admin/system");
    expect(await screen.findByRole("heading", { name: "System Health" })).toBeInTheDocument();
    // Nine tabs drawn one after another: on a busy 2-core machine that takes longer than 20 s.
  }, 60_000);

  it.each(ADMIN_TABS.map((tab) => [tab.slug, tab.label]))(
    "opens /admin/%s on that tab after a reload",
    async (slug, label) => {
      signedIn(`/admin/${slug}`);
      expect(await screen.findByRole("tab", { name: label })).toHaveAttribute("aria-selected", "true");
      expect(currentLocation().pathname).toBe(`/admin/${slug}`);
    },
  );

  it.each(["/admin", "/admin/no-such-tab"])("opens the System Monitor at %s", async (path) => {
    signedIn(path);
    expect(await screen.findByRole("tab", { name: "System Monitor" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    expect(currentLocation().pathname).toBe("/admin/system");
  });

  it.each([
    [12, "User Alerts, 9+ pending", "9+"],
    [3, "User Alerts, 3 pending", "3"],
  ])("shows %i pending user alert rules as an orange badge", async (pending, name, text) => {
    signedIn("/admin/system", {
      routes: {
        "GET /admin/user-alerts/stats/overview": {
          body: { success: true, data: { overview: { pending_alerts: pending } } },
        },
      },
    });
    const tab = await screen.findByRole("tab", { name });
    const badge = tab.querySelector(".MuiBadge-badge");
    expect(badge).toHaveTextContent(text);
    expect(badge).toHaveClass("MuiBadge-colorWarning");
  });

  it("shows the accounts awaiting review as an orange badge on the Users tab", async () => {
    const { server } = signedIn("/admin/system", {
      routes: {
        "GET /admin/users": (request) =>
          request.query.get("status") === "pending_review"
            ? { body: { success: true, data: [], total: 2 } }
            : { body: { success: true, data: [], total: 0 } },
      },
    });
    const tab = await screen.findByRole("tab", { name: "Users, 2 awaiting review" });
    expect(tab.querySelector(".MuiBadge-badge")).toHaveTextContent("2");
    expect(tab.querySelector(".MuiBadge-badge")).toHaveClass("MuiBadge-colorWarning");
    expect(server.callsTo("GET /admin/users")[0]!.query.get("status")).toBe("pending_review");
  });

  it("shows no User Alerts badge when nothing waits for review, and none on Feedback when all is read", async () => {
    const { server } = signedIn("/admin/system");
    const tab = await screen.findByRole("tab", { name: "User Alerts" });
    expect(tab.querySelector(".MuiBadge-invisible")).not.toBeNull();
    await waitFor(() => expect(server.callsTo("GET /admin/users")).toHaveLength(1));
    expect(screen.getByRole("tab", { name: "Users" }).querySelector(".MuiBadge-invisible")).not.toBeNull();
    await waitFor(() => expect(server.callsTo("GET /feedback/admin/unread-count")).toHaveLength(1));
    expect(screen.getByRole("tab", { name: "Feedback" }).querySelector(".MuiBadge-invisible")).not.toBeNull();
    // Admins follow the admin count, never the member one.
    expect(server.callsTo("GET /feedback/unread-count")).toHaveLength(0);
  });

  it("shows unread feedback as an orange badge on the Feedback tab, updated by the admin channel", async () => {
    let unread = 12;
    signedIn("/admin/system", {
      routes: {
        "GET /feedback/admin/unread-count": () => ({
          body: { success: true, data: { unread_count: unread } },
        }),
      },
    });
    const tab = await screen.findByRole("tab", { name: "Feedback, 9+ unread" });
    const badge = tab.querySelector(".MuiBadge-badge");
    expect(badge).toHaveTextContent("9+");
    expect(badge).toHaveClass("MuiBadge-colorWarning");

    unread = 3;
    (await liveChannelOpened()).connect();
    latestLiveChannel().serverEmit("feedback:new-message", {
      conversationId: 7,
      messageId: 1,
      isAdmin: false,
    });
    expect(await screen.findByRole("tab", { name: "Feedback, 3 unread" })).toBeInTheDocument();
  });

  it("sends an admin's 'Feedback' menu item to the Feedback tab", async () => {
    const { user } = signedIn("/");
    await screen.findByRole("heading", { name: "Alerts" });
    const menu = await openUserMenu(user);
    await user.click(within(menu).getByRole("menuitem", { name: "Feedback" }));
    await waitFor(() => expect(currentLocation().pathname).toBe("/admin/feedback"));
    expect(await screen.findByRole("heading", { name: "Feedback" })).toBeInTheDocument();
  });

  it("tells a non-admin who reaches it that admin rights are needed, and asks the server nothing", async () => {
    const { server } = signedIn("/admin/system", { user: testUser });
    expect(await screen.findByText(MESSAGES.SYSTEM_MONITOR_DENIED)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.SYSTEM_MONITOR_ADMIN_REQUIRED)).toBeInTheDocument();
    expect(screen.queryByRole("tab")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Back to Alerts" })).toBeInTheDocument();
    expect(server.requests.filter((request) => request.path.startsWith("/admin"))).toEqual([]);
    (await liveChannelOpened()).connect();
    expect(emittedEvents()).toEqual(["join-user-agencies"]);
  });

  it("prefetches the system dashboard once an admin is signed in, and never for other users", async () => {
    const admin = signedIn("/");
    await waitFor(() => expect(admin.server.callsTo("GET /admin/system/dashboard")).toHaveLength(1));
    admin.unmount();

    const member = signedIn("/", { user: testUser });
    await screen.findByRole("heading", { name: "Alerts" });
    await waitFor(() => expect(member.server.callsTo("GET /alerts/search")).toHaveLength(1));
    expect(member.server.callsTo("GET /admin/system/dashboard")).toHaveLength(0);
  });
});
