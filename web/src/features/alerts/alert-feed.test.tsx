import { act, screen, waitFor, within } from "@testing-library/react";
import { MESSAGES, TYPE_PRESENTATION } from "@turnout/domain";
import { subscribeLiveEvent } from "../../api/live-events";
import { latestLiveChannel, liveChannelOpened } from "../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "./alert-fixtures";
import type { AlertGroup } from "./alerts-api";

/** A feed of one card, "First", that has a newer one, `message`, from its `read`th read on. */
function gainsOnRead(read: number, message: string): MockRoute {
  let calls = 0;
  return () => {
    calls += 1;
    const base = [makeGroup(makeAlert({ id: 1, message: "First" }))];
    return feedPage(calls < read ? base : [makeGroup(makeAlert({ id: 9, message })), ...base]);
  };
}

function dashboard(routes: Record<string, MockRoute>, path = "/") {
  const server = mockApi({ "GET /health": { body: { status: "ok" } }, ...routes });
  storeSession();
  const rendered = renderApp(path);
  return { server, ...rendered };
}

async function cardsShown(count: number) {
  // The first test of a file waits for the lazily loaded dashboard's cold transform too: over a
  // second when the machine is busy, so longer than waitFor's default.
  await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(count), { timeout: 5_000 });
  return screen.getAllByRole("article");
}

describe("alert cards", { timeout: 15_000 }, () => {
  it.each([
    ["emergency", "@@ALERT F2400001 STRUCTURE FIRE", "ALERT F2400001 STRUCTURE FIRE"],
    ["non-emergency", "Hb NON-URGENT TREE DOWN", "NON-URGENT TREE DOWN"],
    ["administrative", "QD Station meeting 7pm", "Station meeting 7pm"],
    ["standard", "Test page from the brigade", "Test page from the brigade"],
  ] as const)(
    "shows a %s alert with its label, icon, agency, area, text and time",
    async (type, message, text) => {
      dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert({ type, message }))]) });
      const [card] = await cardsShown(1);
      const presentation = TYPE_PRESENTATION[type];
      const badge = within(card!).getByRole("button", { name: `Show only ${presentation.label} alerts` });
      expect(badge).toHaveTextContent(presentation.label.toUpperCase());
      expect(badge.querySelector("svg")).not.toBeNull();
      expect(card).toHaveAccessibleName(`${presentation.label} alert from Country Fire Authority`);
      expect(within(card!).getByText(text)).toBeInTheDocument();
      expect(
        within(card!).getByRole("button", { name: "Show only Country Fire Authority alerts" }),
      ).toBeVisible();
      expect(within(card!).getByRole("button", { name: "Show only alerts in Geelong" })).toBeVisible();
      expect(within(card!).getByText("5m ago")).toBeInTheDocument();
    },
  );

  it("shows when a page replayed from a receiver's spool was paged, not when it was received", async () => {
    const paged = new Date(Date.now() - 3.5 * 3_600_000).toISOString();
    const received = new Date(Date.now() - 20_000).toISOString();
    dashboard({
      "GET /alerts/search": feedPage([
        makeGroup(makeAlert({ created_at: received, sent_at: paged, received_at: received })),
      ]),
    });
    const [card] = await cardsShown(1);
    expect(within(card!).getByText("3h ago")).toBeInTheDocument();
    expect(within(card!).queryByText("Just now")).not.toBeInTheDocument();
  });

  it("shows the agency logo when the agency has one, and a date for alerts older than 7 days", async () => {
    const old = new Date(Date.UTC(2026, 0, 2, 3, 0)).toISOString();
    dashboard({
      "GET /alerts/search": feedPage([
        makeGroup(makeAlert({ agency_logo_path: "/api/uploads/agency-logos/2-abc.png", created_at: old })),
      ]),
    });
    const [card] = await cardsShown(1);
    expect(card!.querySelector("img")?.getAttribute("src")).toBe("/api/uploads/agency-logos/2-abc.png");
    expect(within(card!).getByText(/\d{1,2} Jan 2026/)).toBeInTheDocument();
  });

  it("asks for grouped pages of 50 and says 'No alerts found' when there are none", async () => {
    const { server } = dashboard({ "GET /alerts/search": feedPage([]) });
    expect(await screen.findByText(MESSAGES.NO_ALERTS)).toBeInTheDocument();
    const query = server.callsTo("GET /alerts/search")[0]?.query;
    expect(query?.get("limit")).toBe("50");
    expect(query?.get("grouped")).toBe("true");
  });

  it("never asks a member's feed in admin context nor shows capcodes or assignment", async () => {
    const { server } = dashboard({
      // Even a card under UNMAPPED (which a member's scope never returns) offers nothing of the admin's.
      "GET /alerts/search": feedPage([makeGroup(makeAlert({ capcode: "1234567", agency_code: "UNMAPPED" }))]),
    });
    const [card] = await cardsShown(1);
    expect(server.callsTo("GET /alerts/search")[0]?.query.has("admin_context")).toBe(false);
    expect(within(card!).queryByLabelText("Capcode 1234567")).not.toBeInTheDocument();
    expect(within(card!).queryByRole("button", { name: /Assign capcode/ })).not.toBeInTheDocument();
  });

  it("shows the server's error with Retry, and 'Failed to load alerts' when it says nothing", async () => {
    let mode: "message" | "bare" | "ok" = "message";
    const { user } = dashboard({
      "GET /alerts/search": () => {
        if (mode === "message") {
          return {
            status: 400,
            body: { success: false, message: "The cursor is not valid; start again without it." },
          };
        }
        if (mode === "bare") return { status: 502 };
        return feedPage([makeGroup(makeAlert({ message: "Back again" }))]);
      },
    });
    expect(await screen.findByText("The cursor is not valid; start again without it.")).toBeInTheDocument();
    mode = "bare";
    await user.click(screen.getByRole("button", { name: "Retry" }));
    // A server error is retried twice (after 1 s, then 2 s) before it shows.
    expect(await screen.findByText(MESSAGES.ALERTS_LOAD_FAILED, {}, { timeout: 8_000 })).toBeInTheDocument();
    mode = "ok";
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByText("Back again")).toBeInTheDocument();
  });

  it("loads the next page with the cursor and shows a job spanning both pages once", async () => {
    const jobFirst = makeAlert({ id: 10, group_id: 3, job_number: "F2400010" });
    const jobSecond = makeAlert({
      id: 60,
      group_id: 3,
      job_number: "F2400010",
      message: "@@F2400010 UPDATE",
    });
    const { server } = dashboard({
      "GET /alerts/search": (request) =>
        request.query.get("cursor") === "page-2"
          ? feedPage([
              makeGroup(jobFirst, jobSecond),
              makeGroup(makeAlert({ id: 5, message: "Older alert" })),
            ])
          : feedPage([makeGroup(jobFirst, jobSecond)], "page-2"),
    });
    // jsdom lays nothing out, so the list's bottom is always within 300 px: the next page loads by itself.
    expect(await screen.findByText("Older alert")).toBeInTheDocument();
    expect(screen.getAllByRole("article")).toHaveLength(2);
    expect(server.callsTo("GET /alerts/search").some((r) => r.query.get("cursor") === "page-2")).toBe(true);
  });
});

describe("filter chips", { timeout: 15_000 }, () => {
  it("filters by a card's type, agency and area, removes one chip, and clears all", async () => {
    const { server, user } = dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert())]) });
    const [card] = await cardsShown(1);
    await user.click(within(card!).getByRole("button", { name: "Show only Emergency alerts" }));
    const bar = await screen.findByRole("region", { name: "Active filters" });
    expect(within(bar).getByRole("button", { name: "Remove filter Type: Emergency" })).toBeInTheDocument();

    const [filteredCard] = await cardsShown(1);
    await user.click(
      within(filteredCard!).getByRole("button", { name: "Show only Country Fire Authority alerts" }),
    );
    await user.click(
      within(await cardsShown(1).then((c) => c[0]!)).getByRole("button", {
        name: "Show only alerts in Geelong",
      }),
    );
    await waitFor(() => {
      const last = server.callsTo("GET /alerts/search").at(-1)?.query;
      expect(last?.get("type")).toBe("emergency");
      expect(last?.get("agency_id")).toBe("2");
      expect(last?.get("area")).toBe("Geelong");
    });

    await user.click(screen.getByRole("button", { name: "Remove filter Agency: Country Fire Authority" }));
    await waitFor(() =>
      expect(server.callsTo("GET /alerts/search").at(-1)?.query.get("agency_id")).toBeNull(),
    );
    expect(screen.getByRole("button", { name: "Remove filter Area: Geelong" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Clear All" }));
    expect(screen.queryByRole("region", { name: "Active filters" })).not.toBeInTheDocument();
    const last = server.callsTo("GET /alerts/search").at(-1)?.query;
    expect(last?.get("type")).toBeNull();
    expect(last?.get("area")).toBeNull();
  });
});

describe("search messages", { timeout: 15_000 }, () => {
  it("submits on Enter, shows the search as a chip and sends it to the server", async () => {
    const { server, user } = dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert())]) });
    await cardsShown(1);
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    const dialog = await screen.findByRole("dialog", { name: "Search Messages" });
    expect(within(dialog).getByRole("button", { name: "Clear" })).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Search" })).toBeInTheDocument();
    await user.type(within(dialog).getByRole("textbox", { name: "Keywords" }), "  structure   fire {Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.getByRole("button", { name: "Remove filter Search: structure fire" })).toBeInTheDocument();
    await waitFor(() =>
      expect(server.callsTo("GET /alerts/search").at(-1)?.query.get("search")).toBe("structure fire"),
    );
  });

  it("'Clear' removes the search", async () => {
    const { server, user } = dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert())]) });
    await cardsShown(1);
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    await user.type(await screen.findByRole("textbox", { name: "Keywords" }), "smoke{Enter}");
    await screen.findByRole("button", { name: "Remove filter Search: smoke" });
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    const dialog = await screen.findByRole("dialog", { name: "Search Messages" });
    expect(within(dialog).getByRole("textbox", { name: "Keywords" })).toHaveValue("smoke");
    await user.click(within(dialog).getByRole("button", { name: "Clear" }));
    await waitFor(() =>
      expect(screen.queryByRole("button", { name: "Remove filter Search: smoke" })).not.toBeInTheDocument(),
    );
    expect(server.callsTo("GET /alerts/search").at(-1)?.query.get("search")).toBeNull();
  });
});

describe("grouped jobs", { timeout: 15_000 }, () => {
  it("shows a job as one card that opens its messages oldest first, and 'Close'", async () => {
    const messages = [
      makeAlert({ id: 31, group_id: 8, job_number: "F2409999", message: "@@F2409999 FIRST CALL" }),
      makeAlert({ id: 32, group_id: 8, job_number: "F2409999", message: "Hb F2409999 SECOND" }),
      makeAlert({ id: 33, group_id: 8, job_number: "F2409999", message: "Hb F2409999 THIRD" }),
    ];
    const group: AlertGroup = makeGroup(...messages);
    const { user } = dashboard({
      "GET /alerts/search": feedPage([group]),
      "GET /alerts/31/group": { body: { success: true, data: group } },
    });
    const [card] = await cardsShown(1);
    expect(within(card!).getByText(/3 messages/)).toBeInTheDocument();
    await user.click(within(card!).getByRole("button", { name: "Open all 3 messages of job F2409999" }));
    const dialog = await screen.findByRole("dialog", { name: "Job F2409999" });
    const items = within(within(dialog).getByRole("list", { name: "Messages, oldest first" })).getAllByRole(
      "listitem",
    );
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringContaining("F2409999 FIRST CALL"),
      expect.stringContaining("F2409999 SECOND"),
      expect.stringContaining("F2409999 THIRD"),
    ]);
    await user.click(within(dialog).getAllByRole("button", { name: "Close" }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });
});

describe("live alerts", { timeout: 15_000 }, () => {
  it("joins the user's agencies on connect and adds a matching alert once, at the top, announced", async () => {
    dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert({ id: 1, message: "Older one" }))]) });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    expect(channel.emitted).toContainEqual({ event: "join-user-agencies", payload: { view: "units" } });
    expect(screen.getByRole("button", { name: "User menu for Sam Taylor" })).toHaveAccessibleDescription(
      "Live updates: connected",
    );

    const fresh = makeAlert({ id: 2, message: "@@ALERT NEW GRASS FIRE" });
    act(() => channel.serverEmit("new-alert", fresh));
    act(() => channel.serverEmit("new-alert", fresh));
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("ALERT NEW GRASS FIRE");
    expect(cards[0]).toHaveTextContent("NEW");
    expect(
      screen.getByText(/New Emergency alert from Country Fire Authority in Geelong/),
    ).toBeInTheDocument();
  });

  it("puts a replayed old page arriving live at its place by time, not at the top", async () => {
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    dashboard({
      "GET /alerts/search": feedPage([
        makeGroup(makeAlert({ id: 1, message: "@@ALERT NEWER LOADED", sent_at: minutesAgo(5) })),
        makeGroup(makeAlert({ id: 2, message: "@@ALERT OLDER LOADED", sent_at: minutesAgo(300) })),
      ]),
    });
    await cardsShown(2);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    const replayed = makeAlert({
      id: 3,
      message: "@@ALERT REPLAYED FROM SPOOL",
      sent_at: minutesAgo(150),
      received_at: minutesAgo(0),
    });
    act(() => channel.serverEmit("new-alert", replayed));
    const cards = await cardsShown(3);
    expect(cards.map((c) => within(c).getByText(/^ALERT /).textContent)).toEqual([
      "ALERT NEWER LOADED",
      "ALERT REPLAYED FROM SPOOL",
      "ALERT OLDER LOADED",
    ]);
    expect(within(cards[1]!).getByText("2h ago")).toBeInTheDocument();
  });

  it("ignores a live alert that does not match the active filters", async () => {
    const { user } = dashboard({
      "GET /alerts/search": feedPage([makeGroup(makeAlert({ id: 1, message: "@@Smoke seen near school" }))]),
    });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    await user.type(await screen.findByRole("textbox", { name: "Keywords" }), "smoke school{Enter}");
    await screen.findByRole("button", { name: "Remove filter Search: smoke school" });
    await cardsShown(1);

    act(() => channel.serverEmit("new-alert", makeAlert({ id: 5, message: "@@Smoke only" })));
    act(() =>
      channel.serverEmit("new-alert", makeAlert({ id: 6, type: "standard", message: "School SMOKE drill" })),
    );
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("School SMOKE drill");
    expect(screen.queryByText("Smoke only")).not.toBeInTheDocument();
  });

  it("says when live updates are lost and catches up after reconnecting", async () => {
    const { server } = dashboard({ "GET /alerts/search": gainsOnRead(2, "Missed") });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.drop());
    expect(await screen.findByText("Live updates lost. Reconnecting…")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "User menu for Sam Taylor" })).toHaveAccessibleDescription(
      "Live updates: reconnecting",
    );
    act(() => channel.connect());
    // Read once the server has joined the rooms again, not at the connect: a page sent between the two
    // would otherwise be missed.
    await waitFor(() =>
      expect(screen.queryByText("Live updates lost. Reconnecting…")).not.toBeInTheDocument(),
    );
    expect(server.callsTo("GET /alerts/search")).toHaveLength(1);
    act(() => channel.acknowledgeJoin());
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("Missed");
    expect(server.callsTo("GET /alerts/search")).toHaveLength(2);
    expect(server.callsTo("GET /alerts/search")[1]!.query.get("limit")).toBe("50");
  });

  it("reads a short first page once the channel has joined, for what was paged in between", async () => {
    const { server } = dashboard({ "GET /alerts/search": gainsOnRead(2, "Paged while joining") });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    expect(channel.emitted.map((e) => e.event)).toContain("join-user-agencies");
    act(() => channel.acknowledgeJoin());
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("Paged while joining");
    const reads = server.callsTo("GET /alerts/search");
    expect(reads).toHaveLength(2);
    expect(reads[1]!.query.get("limit")).toBe("10");
  });

  it("reads the feed again from the top when the server says an admin changed the member's agencies", async () => {
    const cfa = makeGroup(makeAlert({ id: 1, message: "Country fire job" }));
    const ses = makeGroup(
      makeAlert({ id: 2, message: "Storm job", agency_id: 7, agency_name: "SES", agency_code: "SES" }),
    );
    let taken = false;
    const { server } = dashboard({ "GET /alerts/search": () => feedPage(taken ? [cfa] : [ses, cfa]) });
    await cardsShown(2);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.acknowledgeJoin());
    await waitFor(() => expect(server.callsTo("GET /alerts/search")).toHaveLength(2));

    // SES taken away: the server's own notice answers no join of the page's.
    taken = true;
    act(() => channel.acknowledgeJoin());
    await waitFor(() => expect(screen.queryByText("Storm job")).not.toBeInTheDocument());
    expect(screen.getByText("Country fire job")).toBeInTheDocument();
    const reads = server.callsTo("GET /alerts/search");
    expect(reads).toHaveLength(3);
    expect(reads[2]!.query.get("limit")).toBe("50");
  });

  it("waits for the feed's first page before catching up on a join confirmed sooner", async () => {
    let release!: () => void;
    const firstPageHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { server } = dashboard({
      "GET /alerts/search": async () => {
        calls += 1;
        if (calls === 1) {
          await firstPageHeld;
          return feedPage([makeGroup(makeAlert({ id: 1, message: "First" }))]);
        }
        return feedPage([
          makeGroup(makeAlert({ id: 9, message: "Paged while joining" })),
          makeGroup(makeAlert({ id: 1, message: "First" })),
        ]);
      },
    });
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.acknowledgeJoin());
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The first page is still on its way: it is neither cancelled nor asked for twice.
    expect(server.callsTo("GET /alerts/search")).toHaveLength(1);
    release();
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("Paged while joining");
    expect(server.callsTo("GET /alerts/search")).toHaveLength(2);
  });

  it("shows a burst's newest alert at once and reads the first page once the burst settles", async () => {
    const minutesAgo = (m: number) => {
      const at = new Date(Date.now() - m * 60_000).toISOString();
      return { created_at: at, sent_at: at };
    };
    let calls = 0;
    const first = [makeGroup(makeAlert({ id: 1, message: "Before the burst", ...minutesAgo(30) }))];
    const { server } = dashboard({
      "GET /alerts/search": () => {
        calls += 1;
        if (calls === 1) return feedPage(first);
        return feedPage([
          makeGroup(makeAlert({ id: 300, message: "@@ALERT NEWEST OF THE BURST", ...minutesAgo(1) })),
          makeGroup(makeAlert({ id: 299, message: "Sent in the burst, not live", ...minutesAgo(2) })),
          ...first,
        ]);
      },
    });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    let settled = 0;
    const stopListening = subscribeLiveEvent("burst-settled", () => {
      settled += 1;
    });

    // No jitter: the page is read 2 s after the last refresh.
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    act(() =>
      channel.serverEmit("alerts:refresh", {
        count: 150,
        newest: makeAlert({ id: 150, message: "Newest so far", ...minutesAgo(3) }),
      }),
    );
    act(() =>
      channel.serverEmit("alerts:refresh", {
        count: 150,
        newest: makeAlert({ id: 300, message: "@@ALERT NEWEST OF THE BURST", ...minutesAgo(1) }),
      }),
    );
    random.mockRestore();
    const shown = await cardsShown(3);
    expect(shown[0]).toHaveTextContent("ALERT NEWEST OF THE BURST");
    expect(server.callsTo("GET /alerts/search")).toHaveLength(1);

    await waitFor(() => expect(screen.getByText("Sent in the burst, not live")).toBeInTheDocument());
    const cards = await cardsShown(4);
    expect(cards[0]).toHaveTextContent("ALERT NEWEST OF THE BURST");
    expect(cards.at(-1)).toHaveTextContent("Before the burst");
    // Two refreshes, one read of the first page, and one word to the other feeds (the admin console's).
    expect(server.callsTo("GET /alerts/search")).toHaveLength(2);
    expect(settled).toBe(1);
    stopListening();
  });

  it("offers 'Reconnect' after the live channel failed", async () => {
    const { user } = dashboard({ "GET /alerts/search": feedPage([]) });
    await screen.findByText(MESSAGES.NO_ALERTS);
    const channel = await liveChannelOpened();
    act(() => channel.fail());
    expect(
      await screen.findByText("Live updates failed. New alerts will not appear until you reconnect."),
    ).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Reconnect" }));
    expect(channel.reconnectRequests).toBe(1);
  });

  it("hands a session the server ended to the Session Ended dialog", async () => {
    dashboard({ "GET /alerts/search": feedPage([]) });
    await screen.findByText(MESSAGES.NO_ALERTS);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.serverEmit("session-ended", { reason: "logged_out_by_admin" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    expect(dialog).toHaveTextContent(MESSAGES.LOGGED_OUT_BY_ADMIN);
    expect(channel.closed).toBe(true);
  });

  it("asks the server about the session when it refuses the live channel, and ends it on a 401", async () => {
    const { server } = dashboard({
      "GET /alerts/search": feedPage([]),
      "GET /auth/profile": { body: { success: true } },
    });
    await screen.findByText(MESSAGES.NO_ALERTS);
    // The session ends on the server after the page loaded.
    server.on("GET /auth/profile", {
      status: 401,
      body: { success: false, errorType: "unauthorized", reason: "expired" },
    });
    act(() => latestLiveChannel().reject("expired"));
    const dialog = await screen.findByRole("alertdialog", { name: "Session Ended" });
    expect(dialog).toHaveTextContent(MESSAGES.SESSION_EXPIRED);
    expect(server.callsTo("GET /auth/profile").length).toBeGreaterThan(0);
  });

  it("shows the server's joining warning and its channel errors", async () => {
    dashboard({ "GET /alerts/search": feedPage([]) });
    await screen.findByText(MESSAGES.NO_ALERTS);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() =>
      channel.serverEmit("joined-user-agencies", {
        agencies: [],
        warning: "You are not assigned to any agency yet.",
      }),
    );
    expect(await screen.findByText("You are not assigned to any agency yet.")).toBeInTheDocument();
    act(() => channel.serverEmit("error", { message: "You are not assigned to that agency." }));
    expect(await screen.findByText("You are not assigned to that agency.")).toBeInTheDocument();
  });

  it("closes the live channel before signing out", async () => {
    const { user } = dashboard({
      "GET /alerts/search": feedPage([]),
      "POST /auth/logout": { body: { success: true } },
    });
    await screen.findByText(MESSAGES.NO_ALERTS);
    const channel = await liveChannelOpened();
    await user.click(screen.getByRole("button", { name: "User menu for Sam Taylor" }));
    await user.click(await screen.findByRole("menuitem", { name: "Sign out" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(channel.closed).toBe(true);
  });
});

describe("offline", { timeout: 15_000 }, () => {
  afterEach(() => {
    Object.defineProperty(navigator, "onLine", { configurable: true, get: () => true });
    // TanStack Query's online manager listens for this event, not for navigator.onLine.
    window.dispatchEvent(new Event("online"));
  });

  function goOffline() {
    Object.defineProperty(navigator, "onLine", { configurable: true, get: () => false });
    act(() => {
      window.dispatchEvent(new Event("offline"));
    });
  }

  function goOnline() {
    Object.defineProperty(navigator, "onLine", { configurable: true, get: () => true });
    act(() => {
      window.dispatchEvent(new Event("online"));
    });
  }

  /** A feed read, its live channel in its rooms (the join's short read done); its third read gains a page. */
  async function feedInRooms() {
    const { server } = dashboard({ "GET /alerts/search": gainsOnRead(3, "Paged while offline") });
    await screen.findByText("First");
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() => channel.acknowledgeJoin());
    await waitFor(() => expect(server.callsTo("GET /alerts/search")).toHaveLength(2));
    return { server, channel };
  }

  it("catches up when the network returns while the live channel stayed up", async () => {
    const { server } = await feedInRooms();
    goOffline();
    goOnline();
    expect(await screen.findByText("Paged while offline")).toBeInTheDocument();
    expect(server.callsTo("GET /alerts/search")).toHaveLength(3);
  });

  it("reads once when the network returns after the live channel dropped: when it has joined again", async () => {
    const { server, channel } = await feedInRooms();
    goOffline();
    act(() => channel.drop());
    goOnline();
    await waitFor(() => expect(channel.reconnectRequests).toBe(1));
    act(() => channel.connect());
    act(() => channel.acknowledgeJoin());
    expect(await screen.findByText("Paged while offline")).toBeInTheDocument();
    // The join's read alone: coming back online read nothing of its own.
    expect(server.callsTo("GET /alerts/search")).toHaveLength(3);
  });

  it("keeps the loaded alerts on screen with an offline notice", async () => {
    dashboard({ "GET /alerts/search": feedPage([makeGroup(makeAlert({ message: "Still here" }))]) });
    await screen.findByText("Still here");
    goOffline();
    expect(await screen.findByText(/^You are offline\. Showing alerts loaded at .+\.$/)).toBeInTheDocument();
    expect(screen.getByText("Still here")).toBeInTheDocument();
  });

  it("shows the kept copy of the feed when it cannot load, and keeps it per user only", async () => {
    const first = dashboard({
      "GET /alerts/search": feedPage([makeGroup(makeAlert({ message: "Kept alert" }))]),
    });
    await screen.findByText("Kept alert");
    await waitFor(() => expect(localStorage.getItem("turnout_alerts_cache_7")).toContain("Kept alert"));
    first.unmount();

    Object.defineProperty(navigator, "onLine", { configurable: true, get: () => false });
    mockApi({});
    renderApp("/");
    expect(await screen.findByText(/^You are offline\. Showing alerts loaded at .+\.$/)).toBeInTheDocument();
    expect(await screen.findByText("Kept alert")).toBeInTheDocument();
  });
});

describe("the unit view (issue 26)", { timeout: 15_000 }, () => {
  const memberView = {
    body: {
      success: true,
      data: {
        units: [{ id: 10, name: "Kangaroo Flat", agency_id: 2 }],
        agencies: [{ id: 2, name: "Country Fire Authority", code: "CFA" }],
        default_view: "units",
      },
    },
  };
  const ours = (id: number, message: string) =>
    makeAlert({ id, message, units: [{ id: 10, name: "Kangaroo Flat" }] });

  it("shows the member's units by default, and every CFA job one tap away", async () => {
    const { server, user } = dashboard({
      "GET /units/mine": memberView,
      "GET /alerts/search": (request) =>
        feedPage([
          makeGroup(
            request.query.get("view") === "agencies"
              ? makeAlert({ id: 2, message: "@@ALERT DOVETON FIRE" })
              : ours(1, "@@ALERT OUR FIRE"),
          ),
        ]),
    });
    const units = await screen.findByRole("button", { name: "My units: Kangaroo Flat" });
    expect(units).toHaveAttribute("aria-pressed", "true");
    expect(await screen.findByText("ALERT OUR FIRE")).toBeInTheDocument();
    expect(server.callsTo("GET /alerts/search")[0]?.query.get("view")).toBe("units");
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    await user.click(screen.getByRole("button", { name: "All of CFA" }));
    expect(await screen.findByText("ALERT DOVETON FIRE")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "All of CFA" })).toHaveAttribute("aria-pressed", "true");
    expect(channel.emitted).toContainEqual({ event: "join-user-agencies", payload: { view: "agencies" } });
  });

  it("admits a live alert in the unit view only when it was paged to one of the member's units", async () => {
    dashboard({
      "GET /units/mine": memberView,
      "GET /alerts/search": feedPage([makeGroup(ours(1, "@@ALERT OURS"))]),
    });
    await screen.findByRole("button", { name: "My units: Kangaroo Flat" });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() =>
      channel.serverEmit("new-alert", makeAlert({ id: 5, message: "@@ALERT ANOTHER BRIGADE", units: [] })),
    );
    act(() => channel.serverEmit("new-alert", ours(6, "@@ALERT OUR SECOND")));
    const cards = await cardsShown(2);
    expect(cards[0]).toHaveTextContent("ALERT OUR SECOND");
    expect(screen.queryByText("ALERT ANOTHER BRIGADE")).not.toBeInTheDocument();
  });

  it("hides machine pages until the search asks for them, then says so in a chip", async () => {
    const { server, user } = dashboard({
      "GET /alerts/search": feedPage([makeGroup(makeAlert({ id: 1, message: "@@ALERT REAL JOB" }))]),
    });
    await cardsShown(1);
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    const machine = makeAlert({
      id: 7,
      type: "administrative",
      message: "@@)&)E51TIMEUPDATE",
      is_machine: true,
    });
    act(() => channel.serverEmit("new-alert", machine));
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    await user.click(await screen.findByRole("checkbox", { name: /Include machine and test pages/ }));
    await user.click(screen.getByRole("button", { name: "Search" }));
    expect(
      await screen.findByRole("button", { name: "Remove filter Machine and test pages shown" }),
    ).toBeVisible();
    await waitFor(() =>
      expect(server.callsTo("GET /alerts/search").at(-1)?.query.get("show_machine")).toBe("true"),
    );
    act(() => channel.serverEmit("new-alert", { ...machine, id: 8 }));
    await cardsShown(2);
  });
});
