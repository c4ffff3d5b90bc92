import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CLOSED_CONVERSATION_TEXT } from "@turnout/domain";
import { publishLiveEvent } from "../../api/live-events";
import { AppProviders, createQueryClient } from "../../app/providers";
import { conversation, feedbackServer, message } from "../../testing/feedback/feedback-fixtures";
import { FeedbackTab, FFMPEG_UNAVAILABLE_TEXT } from "./admin-feedback-tab";

vi.setConfig({ testTimeout: 20_000 });

function adminServer() {
  return feedbackServer({
    conversations: [
      conversation({ unread_count: 1 }),
      conversation({
        id: 8,
        subject: "App crashes on start",
        status: "closed",
        message_count: 1,
        user: { id: 6, first_name: "Alex", last_name: "Ng" },
      }),
    ],
    threads: {
      7: [
        message(),
        message({ id: 12, is_admin: true, sender_name: "Alex Admin", message: "Looking into it." }),
      ],
      8: [message({ id: 20, conversation_id: 8, sender_name: "Alex Ng", message: "Crash on start." })],
    },
    adminUnread: 1,
  });
}

function renderTab() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <FeedbackTab />
    </AppProviders>,
  );
  return user;
}

type User = ReturnType<typeof userEvent.setup>;

async function choose(user: User, label: string, option: string) {
  await user.click(screen.getByRole("combobox", { name: label }));
  await user.click(within(await screen.findByRole("listbox")).getByRole("option", { name: option }));
}

describe("admin Feedback tab", () => {
  it("lists every conversation with its member, status and unread mark, and the figures", async () => {
    const server = adminServer();
    renderTab();
    const first = await screen.findByRole("button", { name: /Wrong address on map/ });
    expect(first).toHaveTextContent("Sam Taylor");
    expect(first).toHaveTextContent("1 unread");
    expect(first).toHaveTextContent("Open");
    const second = screen.getByRole("button", { name: /App crashes on start/ });
    expect(second).toHaveTextContent("Alex Ng");
    expect(second).toHaveTextContent("Closed");
    expect(
      await screen.findByText(/2 conversations · 1 open · 0 in progress · 1 closed · 1 unread/),
    ).toBeInTheDocument();
    expect(screen.queryByText(FFMPEG_UNAVAILABLE_TEXT)).not.toBeInTheDocument();
    expect(server.callsTo("GET /feedback/admin/conversations")[0]?.query.get("status")).toBeNull();
  });

  it("warns when the server cannot convert videos", async () => {
    const server = adminServer();
    server.on("GET /feedback/admin/stats", {
      body: { success: true, data: { total: 0, ffmpeg_available: false } },
    });
    renderTab();
    expect(await screen.findByText(FFMPEG_UNAVAILABLE_TEXT)).toBeInTheDocument();
  });

  it("filters by status", async () => {
    const server = adminServer();
    const user = renderTab();
    await screen.findByRole("button", { name: /Wrong address on map/ });
    await choose(user, "Status filter", "Closed");
    await waitFor(() =>
      expect(screen.queryByRole("button", { name: /Wrong address on map/ })).not.toBeInTheDocument(),
    );
    expect(screen.getByRole("button", { name: /App crashes on start/ })).toBeInTheDocument();
    expect(server.callsTo("GET /feedback/admin/conversations").at(-1)?.query.get("status")).toBe("closed");
  });

  it("opens a thread as the admin side, marks it read and changes its status", async () => {
    const server = adminServer();
    const user = renderTab();
    await user.click(await screen.findByRole("button", { name: /Wrong address on map/ }));
    expect(await screen.findByText("From Sam Taylor")).toBeInTheDocument();
    const items = within(screen.getByRole("list", { name: "Messages" })).getAllByRole("listitem");
    expect(items.map((item) => item.getAttribute("aria-label"))).toEqual([
      "Message from Sam Taylor",
      "Message from Alex Admin",
    ]);
    await waitFor(() => expect(server.callsTo("POST /feedback/conversations/7/mark-read")).toHaveLength(1));

    await choose(user, "Status", "Closed");
    await waitFor(() =>
      expect(server.callsTo("PATCH /feedback/conversations/7/status")[0]?.body).toEqual({ status: "closed" }),
    );
    expect(await screen.findByText(CLOSED_CONVERSATION_TEXT)).toBeInTheDocument();
    expect(screen.queryByRole("textbox", { name: "Reply" })).not.toBeInTheDocument();
    expect(await screen.findByText("Status changed to Closed")).toBeInTheDocument();
  });

  it("deletes a conversation only after confirmation", async () => {
    const server = adminServer();
    const user = renderTab();
    await user.click(await screen.findByRole("button", { name: /Wrong address on map/ }));
    await screen.findByText("From Sam Taylor");

    await user.click(screen.getByRole("button", { name: "Delete" }));
    let confirm = await screen.findByRole("alertdialog", { name: "Delete conversation?" });
    expect(confirm).toHaveTextContent("'Wrong address on map' will be deleted");
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(server.callsTo("DELETE /feedback/conversations/7")).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Delete" }));
    confirm = await screen.findByRole("alertdialog", { name: "Delete conversation?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(server.callsTo("DELETE /feedback/conversations/7")).toHaveLength(1));
    await waitFor(() =>
      expect(screen.queryByRole("button", { name: /Wrong address on map/ })).not.toBeInTheDocument(),
    );
    expect(screen.getByText("Select a conversation to read and answer it.")).toBeInTheDocument();
    expect(await screen.findByText("Conversation deleted")).toBeInTheDocument();
  });

  it("shows a new conversation as soon as the admin channel announces it", async () => {
    const server = adminServer();
    renderTab();
    await screen.findByRole("button", { name: /Wrong address on map/ });
    server.state.conversations.unshift(
      conversation({ id: 9, subject: "Siren too quiet", unread_count: 1, message_count: 1 }),
    );
    act(() =>
      publishLiveEvent("feedback:new-conversation", {
        conversationId: 9,
        subject: "Siren too quiet",
        user: { id: 5, first_name: "Sam", last_name: "Taylor" },
      }),
    );
    expect(await screen.findByRole("button", { name: /Siren too quiet/ })).toBeInTheDocument();
  });

  it("replies as the admin", async () => {
    const server = adminServer();
    const user = renderTab();
    await user.click(await screen.findByRole("button", { name: /Wrong address on map/ }));
    await user.type(await screen.findByRole("textbox", { name: "Reply" }), "Fixed in today's release");
    await user.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() =>
      expect(server.callsTo("POST /feedback/conversations/7/messages")[0]?.body).toEqual({
        message: "Fixed in today's release",
      }),
    );
  });
});
