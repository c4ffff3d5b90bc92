import { act, screen, waitFor, within } from "@testing-library/react";
import { FEEDBACK_UNREAD_POLL_MS } from "@turnout/domain";
import { adminRoutes } from "../../testing/admin/admin-fixtures";
import { latestLiveChannel, liveChannelOpened } from "../../testing/fake-live-channel";
import { conversation, feedbackServer, message } from "../../testing/feedback/feedback-fixtures";
import { renderApp } from "../../testing/render-app";
import { storeSession, testUser } from "../../testing/session-fixtures";

// The dashboard is a lazy chunk: on a busy machine its first load takes seconds.
vi.setConfig({ testTimeout: 20_000 });

const avatarName = `User menu for ${testUser.first_name} ${testUser.last_name}`;

function signedInMember(unread: number) {
  const server = feedbackServer(
    { unread, conversations: [conversation({ unread_count: unread })], threads: { 7: [message()] } },
    adminRoutes(),
  );
  // adminRoutes' own feedback answers would shadow the fake's: keep the fake's.
  server.on("GET /feedback/unread-count", () => ({
    body: { success: true, data: { unread_count: server.state.unread } },
  }));
  storeSession({ user: testUser });
  return { server, ...renderApp("/") };
}

describe("feedback unread badge", () => {
  it("shows '9+' for 12 unread on the avatar and the menu's 'Feedback' item, and opens My Feedback", async () => {
    const { user } = signedInMember(12);
    const avatar = await screen.findByRole("button", { name: avatarName });
    await waitFor(() => expect(avatar).toHaveAccessibleDescription(/9\+ unread feedback/));
    expect(within(avatar).getByText("9+")).toBeInTheDocument();

    await user.click(avatar);
    const item = within(await screen.findByRole("menu")).getByRole("menuitem", { name: /Feedback/ });
    expect(item).toHaveTextContent("9+");
    await user.click(item);
    expect(await screen.findByRole("dialog", { name: "My Feedback" })).toBeInTheDocument();
  });

  it("asks the count again 0.5 s after the dialog opens and on a new message", async () => {
    const { server, user } = signedInMember(2);
    const avatar = await screen.findByRole("button", { name: avatarName });
    await waitFor(() => expect(avatar).toHaveAccessibleDescription(/2 unread feedback/));
    const asked = () => server.callsTo("GET /feedback/unread-count").length;
    expect(asked()).toBe(1);

    server.state.unread = 3;
    (await liveChannelOpened()).connect();
    latestLiveChannel().serverEmit("feedback:new-message", {
      conversationId: 7,
      messageId: 12,
      isAdmin: true,
    });
    await waitFor(() => expect(avatar).toHaveAccessibleDescription(/3 unread feedback/));

    const before = asked();
    await user.click(avatar);
    await user.click(within(await screen.findByRole("menu")).getByRole("menuitem", { name: /Feedback/ }));
    await screen.findByRole("dialog", { name: "My Feedback" });
    await waitFor(() => expect(asked()).toBe(before + 1));
  });

  it("polls the count every 30 s", async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    });
    const { server } = signedInMember(1);
    const avatar = await screen.findByRole("button", { name: avatarName });
    await waitFor(() => expect(avatar).toHaveAccessibleDescription(/1 unread feedback/));
    const asked = () => server.callsTo("GET /feedback/unread-count").length;
    const first = asked();
    server.state.unread = 4;
    await act(() => vi.advanceTimersByTimeAsync(FEEDBACK_UNREAD_POLL_MS));
    await waitFor(() => expect(asked()).toBe(first + 1));
    await waitFor(() => expect(avatar).toHaveAccessibleDescription(/4 unread feedback/));
  });
});
