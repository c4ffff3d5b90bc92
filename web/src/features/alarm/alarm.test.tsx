import { act, screen, waitFor, within } from "@testing-library/react";
import { MESSAGES } from "@turnout/domain";
import type { Alert } from "../../api/alerts";
import { installFakeAudio } from "../../testing/alarm/fake-audio";
import { liveChannelOpened } from "../../testing/fake-live-channel";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession, testUser } from "../../testing/session-fixtures";
import { VIBRATION } from "../../ui/alarm-player";
import { feedPage, makeAlert, makeGroup } from "../alerts/alert-fixtures";

const CFA = { id: 2, name: "Country Fire Authority", code: "CFA" };

/** The signed-in dashboard with an empty feed, its live channel connected to the CFA room. */
async function openDashboard() {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([]),
    "GET /alerts/responses": { body: { items: [] } },
    "GET /auth/profile": { body: { success: true, user: testUser, agency: CFA, agencies: [CFA] } },
  });
  storeSession();
  const rendered = renderApp("/");
  // The signed-in page's code loads on demand: a busy machine takes more than a second for it.
  expect(await screen.findByText(MESSAGES.NO_ALERTS, {}, { timeout: 5000 })).toBeInTheDocument();
  const channel = await liveChannelOpened();
  act(() => {
    channel.connect();
    channel.serverEmit("joined-user-agencies", { agencies: [CFA] });
  });
  return { ...rendered, server, channel };
}

/** A page paged just now. */
function page(overrides: Partial<Alert>): Alert {
  const now = new Date().toISOString();
  return makeAlert({ created_at: now, sent_at: now, received_at: now, ...overrides });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, "vibrate");
});

describe("the alarm while the app is open", { timeout: 20_000 }, () => {
  it("asks for one tap, then rings the alarm and vibrates for an emergency page, until silenced", async () => {
    const audio = installFakeAudio();
    const { user, channel } = await openDashboard();

    // Before any tap the browser allows no sound: the page says so, once.
    const notice = await screen.findByText("Tap anywhere to turn the alarm sound on.");
    await user.click(screen.getByRole("heading", { name: "Alerts", hidden: true }).parentElement!);
    await waitFor(() => expect(notice).not.toBeInTheDocument());

    act(() =>
      channel.serverEmit(
        "new-alert",
        page({ message: "@@ALERT F261127001 HOUSE FIRE 3 KING ST", job_number: "F261127001" }),
      ),
    );
    await waitFor(() => expect(audio.started).toEqual([{ wave: "square", contextState: "running" }]));
    expect(audio.vibrate).toHaveBeenCalledWith(VIBRATION.alarm);
    const bar = await screen.findByText("Emergency page");
    await user.click(within(bar.closest('[role="alert"]')!).getByRole("button", { name: "Silence" }));
    await waitFor(() => expect(screen.queryByText("Emergency page")).not.toBeInTheDocument());
    expect(audio.vibrate).toHaveBeenLastCalledWith(0);
  });

  it("stays silent for pages the view hides, admin pages, other agencies and a job already rung", async () => {
    const audio = installFakeAudio();
    const { user, channel } = await openDashboard();
    await user.click(screen.getByRole("button", { name: "Search messages" }));
    // The search dialog's code loads when it first opens.
    await user.type(await screen.findByRole("textbox", { name: "Keywords" }), "ZEBRA{Enter}");
    await screen.findByRole("button", { name: "Remove filter Search: ZEBRA" });

    act(() => {
      // Hidden by the search: the feed does not admit it.
      channel.serverEmit("new-alert", page({ message: "@@ALERT F261127002 GIRAFFE FIRE" }));
      channel.serverEmit("new-alert", page({ type: "administrative", message: "QD ZEBRA STATION MEETING" }));
      // Another agency's page (an admin's console receives every agency's).
      channel.serverEmit("new-alert", page({ agency_id: 9, message: "@@ALERT ZEBRA FIRE ELSEWHERE" }));
    });
    // Both shown pages are on the feed (the admin page and the other agency's), yet nothing rang.
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    expect(audio.started).toEqual([]);

    act(() => {
      channel.serverEmit(
        "new-alert",
        page({ message: "@@ALERT F261127003 ZEBRA CAR FIRE", job_number: "F261127003" }),
      );
      // The same job paged to another capcode a moment later: one ring.
      channel.serverEmit(
        "new-alert",
        page({ message: "@@ALERT F261127003 ZEBRA CAR FIRE [BRAV]", job_number: "F261127003" }),
      );
    });
    await waitFor(() => expect(audio.started.map((s) => s.wave)).toEqual(["square"]));
    await user.click(await screen.findByRole("button", { name: "Silence" }));
    // A non-emergency page rings the soft tone.
    act(() =>
      channel.serverEmit(
        "new-alert",
        page({ type: "non-emergency", message: "Hb ZEBRA TREE DOWN S261127080", job_number: "S261127080" }),
      ),
    );
    await waitFor(() => expect(audio.started.map((s) => s.wave)).toEqual(["square", "sine"]));
    expect(audio.vibrate).toHaveBeenLastCalledWith(VIBRATION.soft);
  });

  it("rings for a page caught up after a reconnect, not for one paged long ago", async () => {
    const audio = installFakeAudio();
    const { channel, server } = await openDashboard();
    const hoursAgo = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const old = makeAlert({
      message: "@@ALERT F261127006 OLD SPOOLED FIRE",
      job_number: "F261127006",
      created_at: hoursAgo,
    });
    server.on("GET /alerts/search", feedPage([makeGroup(old)]));
    act(() => {
      channel.drop();
      channel.connect();
      channel.acknowledgeJoin();
    });
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(1));
    expect(audio.started).toEqual([]);

    const fresh = page({ message: "@@ALERT F261127007 MISSED WHILE AWAY", job_number: "F261127007" });
    server.on("GET /alerts/search", feedPage([makeGroup(fresh), makeGroup(old)]));
    act(() => {
      channel.drop();
      channel.connect();
      channel.acknowledgeJoin();
    });
    await waitFor(() => expect(audio.started.map((s) => s.wave)).toEqual(["square"]));
  });

  it("says a page could not sound when the browser blocks audio, and still vibrates", async () => {
    const audio = installFakeAudio({ refuseResume: true });
    const { channel } = await openDashboard();
    act(() => channel.serverEmit("new-alert", page({ message: "@@ALERT F261127004 GRASS FIRE" })));
    expect(
      await screen.findByText(
        "A page could not sound: the browser blocked it. Tap anywhere to turn the alarm sound on.",
      ),
    ).toBeInTheDocument();
    expect(audio.started).toEqual([]);
    expect(audio.vibrate).toHaveBeenCalledWith(VIBRATION.alarm);
  });

  it("mutes for the chosen hours and follows the member's choice for non-emergency pages", async () => {
    const audio = installFakeAudio();
    const { user, channel } = await openDashboard();
    await user.click(screen.getByRole("button", { name: /^User menu/ }));
    await user.click(await screen.findByRole("menuitem", { name: "Alarm" }));
    const dialog = await screen.findByRole("dialog", { name: "Alarm" });

    // No units yet: one choice per agency.
    const cfa = await within(dialog).findByRole("group", { name: "Country Fire Authority" });
    await user.click(within(cfa).getByRole("button", { name: "Silent" }));
    expect(within(cfa).getByRole("button", { name: "Silent" })).toHaveAttribute("aria-pressed", "true");
    act(() =>
      channel.serverEmit("new-alert", page({ type: "non-emergency", message: "Hb SMOKE ALARM CHECK" })),
    );
    // The dialog hides the page from the accessibility tree meanwhile.
    await waitFor(() => expect(screen.getAllByRole("article", { hidden: true })).toHaveLength(1));
    expect(audio.started).toEqual([]);

    await user.click(within(dialog).getByRole("button", { name: "Mute alarm" }));
    expect(within(dialog).getByText(/^Muted until .*Emergency pages make no sound\.$/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Close Alarm" }));
    expect(await screen.findByRole("button", { name: /^Alarm muted until / })).toBeInTheDocument();
    act(() => channel.serverEmit("new-alert", page({ message: "@@ALERT F261127005 HOUSE FIRE" })));
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    expect(audio.started).toEqual([]);

    // The choices are kept on this device for this member.
    const stored = JSON.parse(localStorage.getItem(`turnout_alarm_settings_${testUser.id}`) ?? "{}");
    expect(stored).toMatchObject({ agencies: { "2": "none" } });
    expect(stored.mutedUntil).toBeGreaterThan(Date.now());
  });
});
