import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CLOSED_CONVERSATION_TEXT, MESSAGES } from "@turnout/domain";
import { publishLiveEvent } from "../../api/live-events";
import { AppProviders, createQueryClient } from "../../app/providers";
import { fakeUploads } from "../../testing/feedback/fake-upload";
import { conversation, feedbackServer, media, message } from "../../testing/feedback/feedback-fixtures";
import { storeSession } from "../../testing/session-fixtures";
import { MyFeedbackDialog } from "./my-feedback-dialog";

// Typing whole forms on a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

const MB = 1024 * 1024;

function renderDialog() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <MyFeedbackDialog open onClose={() => undefined} />
    </AppProviders>,
  );
  return user;
}

/** A File that claims `size` bytes without holding them. */
function bigFile(name: string, type: string, size: number): File {
  const file = new File(["x"], name, { type });
  Object.defineProperty(file, "size", { value: size });
  return file;
}

const fileInput = () => screen.getByLabelText<HTMLInputElement>("Photo or video");

type User = ReturnType<typeof userEvent.setup>;

async function openConversation(user: User, subject: RegExp | string) {
  await user.click(await screen.findByRole("button", { name: subject }));
  return screen.findByRole("list", { name: "Messages" });
}

describe("My Feedback list and thread", () => {
  it("lists own conversations with status, count and unread mark, and opens one oldest message first", async () => {
    const server = feedbackServer({
      conversations: [
        conversation({ unread_count: 2, message_count: 3 }),
        conversation({ id: 8, subject: "Dark mode idea", status: "closed", message_count: 1 }),
      ],
      threads: {
        7: [
          message({ media_attachments: [media()] }),
          message({ id: 12, is_admin: true, sender_name: "Jo Admin", message: "Thanks, fixing it." }),
          message({ id: 13, is_admin: true, sender_name: null, message: "Fixed now." }),
        ],
      },
    });
    const user = renderDialog();

    const first = await screen.findByRole("button", { name: /Wrong address on map/ });
    expect(first).toHaveTextContent("Open");
    expect(first).toHaveTextContent("3 messages");
    expect(first).toHaveTextContent("2 unread");
    const second = screen.getByRole("button", { name: /Dark mode idea/ });
    expect(second).toHaveTextContent("Closed");
    expect(second).toHaveTextContent("1 message");
    expect(second).not.toHaveTextContent("unread");

    const list = await openConversation(user, /Wrong address on map/);
    expect(screen.getByRole("heading", { name: "Wrong address on map" })).toBeInTheDocument();
    const items = within(list).getAllByRole("listitem");
    expect(items.map((item) => item.getAttribute("aria-label"))).toEqual([
      "Message from You",
      "Message from Jo Admin",
      "Message from Admin",
    ]);
    expect(items[0]).toHaveTextContent("The pin is two streets away.");
    const thumbnail = within(items[0]!).getByRole("img", { name: "street.jpg" });
    expect(thumbnail).toHaveAttribute("src", "/feedback-uploads/abc-thumb.webp?exp=1&sig=bb");

    await user.click(within(items[0]!).getByRole("button", { name: "Open photo street.jpg" }));
    const full = await screen.findByRole("dialog", { name: "street.jpg" });
    expect(within(full).getByRole("img", { name: "street.jpg" })).toHaveAttribute(
      "src",
      "/feedback-uploads/abc.jpg?exp=1&sig=aa",
    );
    await user.click(within(full).getByRole("button", { name: "Close" }));

    // Marked read 0.5 s after it opened, not at once.
    await waitFor(() => expect(server.markedAt).toHaveLength(1));
    expect(server.callsTo("POST /feedback/conversations/7/mark-read")).toHaveLength(1);
    expect(server.markedAt[0]! - server.threadAskedAt[0]!).toBeGreaterThanOrEqual(450);
  });

  it("shows a photo without a thumbnail as a file card, never the original", async () => {
    const bomb = media({
      id: 41,
      file_name: "huge.png",
      file_type: "image/png",
      size_bytes: 2_400_000,
      file_path: "/feedback-uploads/huge.png?exp=1&sig=ee",
      thumbnail_path: null,
    });
    feedbackServer({
      conversations: [conversation()],
      threads: { 7: [message({ message: "", media_attachments: [bomb] })] },
    });
    const user = renderDialog();
    const list = await openConversation(user, /Wrong address on map/);
    const card = within(list).getByRole("group", { name: "File huge.png" });
    expect(card).toHaveTextContent("No preview · 2.3 MB");
    expect(within(card).getByRole("link", { name: "Download huge.png" })).toHaveAttribute(
      "href",
      "/feedback-uploads/huge.png?exp=1&sig=ee",
    );
    expect(within(list).queryByRole("img")).not.toBeInTheDocument();
    expect(document.querySelector('img[src*="huge.png"]')).toBeNull();
  });

  it("says so when there is no feedback yet", async () => {
    feedbackServer();
    renderDialog();
    expect(await screen.findByText("You have not sent any feedback yet.")).toBeInTheDocument();
  });

  it("shows the closed text instead of the reply box for a closed conversation", async () => {
    feedbackServer({
      conversations: [conversation({ status: "closed" })],
      threads: { 7: [message()] },
    });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    expect(screen.getByText(CLOSED_CONVERSATION_TEXT)).toBeInTheDocument();
    expect(screen.queryByRole("textbox", { name: "Reply" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Send" })).not.toBeInTheDocument();
  });

  it("swaps the reply box for the closed text when an admin closes the open conversation", async () => {
    const server = feedbackServer({ conversations: [conversation()], threads: { 7: [message()] } });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    expect(screen.getByRole("textbox", { name: "Reply" })).toBeInTheDocument();
    server.state.conversations[0]!.status = "closed";
    act(() => publishLiveEvent("feedback:status-changed", { conversationId: 7, status: "closed" }));
    expect(await screen.findByText(CLOSED_CONVERSATION_TEXT)).toBeInTheDocument();
    expect(screen.queryByRole("textbox", { name: "Reply" })).not.toBeInTheDocument();
  });

  it("shows 'Converting video...' until the media-converted event, then the video with its poster", async () => {
    const pending = media({
      id: 40,
      file_name: "clip.mov",
      file_type: "video/quicktime",
      kind: "video",
      file_path: "/feedback-uploads/clip.mov?exp=1&sig=cc",
      thumbnail_path: "/feedback-uploads/clip-poster.jpg?exp=1&sig=dd",
      conversion_status: "pending",
    });
    const server = feedbackServer({
      conversations: [conversation()],
      threads: { 7: [message({ message: "", media_attachments: [pending] })] },
    });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    expect(screen.getByText(MESSAGES.VIDEO_CONVERTING)).toBeInTheDocument();
    expect(screen.queryByLabelText("Video clip.mov")).not.toBeInTheDocument();

    server.state.threads[7] = [
      message({
        message: "",
        media_attachments: [
          {
            ...pending,
            file_type: "video/mp4",
            file_path: "/feedback-uploads/clip.mp4?exp=1&sig=ee",
            conversion_status: "done",
          },
        ],
      }),
    ];
    act(() =>
      publishLiveEvent("feedback:media-converted", { conversationId: 7, mediaId: 40, status: "done" }),
    );

    const video = await screen.findByLabelText("Video clip.mov");
    expect(video.tagName).toBe("VIDEO");
    expect(video).toHaveAttribute("src", "/feedback-uploads/clip.mp4?exp=1&sig=ee");
    expect(video).toHaveAttribute("poster", "/feedback-uploads/clip-poster.jpg?exp=1&sig=dd");
    expect(video).toHaveAttribute("controls");
    expect(screen.queryByText(MESSAGES.VIDEO_CONVERTING)).not.toBeInTheDocument();
  });

  it("offers the original for download when the server could not convert a video", async () => {
    feedbackServer({
      conversations: [conversation()],
      threads: {
        7: [
          message({
            media_attachments: [
              media({
                file_name: "clip.mov",
                file_type: "video/quicktime",
                kind: "video",
                conversion_status: "unavailable",
              }),
            ],
          }),
        ],
      },
    });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    expect(screen.getByText(/Video conversion unavailable/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Download clip.mov" })).toHaveAttribute(
      "href",
      "/feedback-uploads/abc.jpg?exp=1&sig=aa",
    );
  });

  it("refetches the open thread when a new message arrives for it, and marks it read again", async () => {
    const server = feedbackServer({ conversations: [conversation()], threads: { 7: [message()] } });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    await waitFor(() => expect(server.markedAt).toHaveLength(1));

    server.state.threads[7] = [
      message(),
      message({ id: 12, is_admin: true, sender_name: "Jo Admin", message: "On it." }),
    ];
    act(() => publishLiveEvent("feedback:new-message", { conversationId: 7, messageId: 12, isAdmin: true }));
    expect(await screen.findByText("On it.")).toBeInTheDocument();
    await waitFor(() => expect(server.markedAt).toHaveLength(2));

    // Another conversation's message leaves this thread alone.
    const asked = server.threadAskedAt.length;
    act(() => publishLiveEvent("feedback:new-message", { conversationId: 8, messageId: 99, isAdmin: true }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.threadAskedAt).toHaveLength(asked);
  });
});

describe("My Feedback replies", () => {
  it("sends a reply, and refuses a blank one", async () => {
    const server = feedbackServer({ conversations: [conversation()], threads: { 7: [message()] } });
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);

    await user.type(screen.getByRole("textbox", { name: "Reply" }), "   ");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("Message is required")).toBeInTheDocument();
    expect(server.callsTo("POST /feedback/conversations/7/messages")).toHaveLength(0);

    await user.type(screen.getByRole("textbox", { name: "Reply" }), "Still wrong today");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("Still wrong today")).toBeInTheDocument();
    expect(server.callsTo("POST /feedback/conversations/7/messages")[0]?.body).toEqual({
      message: "Still wrong today",
    });
    expect(screen.getByRole("textbox", { name: "Reply" })).toHaveValue("");
  });

  it("says 'Failed to send message. Please try again.' when the server fails", async () => {
    feedbackServer(
      { conversations: [conversation()], threads: { 7: [message()] } },
      {
        "POST /feedback/conversations/7/messages": { status: 500, body: { success: false, message: "boom" } },
      },
    );
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    await user.type(screen.getByRole("textbox", { name: "Reply" }), "Hello");
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText(MESSAGES.FEEDBACK_SEND_FAILED)).toBeInTheDocument();
  });

  it("uploads an attachment with the client's headers, showing progress, and shows the server's refusal", async () => {
    storeSession();
    feedbackServer({ conversations: [conversation()], threads: { 7: [message()] } });
    const { uploads } = fakeUploads();
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);

    await user.upload(fileInput(), new File(["jpeg"], "sign.jpg", { type: "image/jpeg" }));
    expect(screen.getByText("sign.jpg")).toBeInTheDocument();
    await user.type(screen.getByRole("textbox", { name: "Reply" }), "Here is the sign");
    await user.click(screen.getByRole("button", { name: "Send" }));

    await waitFor(() => expect(uploads).toHaveLength(1));
    const upload = uploads[0]!;
    expect(upload.method).toBe("POST");
    expect(upload.path).toBe("/feedback/conversations/7/upload");
    expect(upload.headers.authorization).toMatch(/^Bearer /);
    expect(upload.headers["x-device-id"]).toBeTruthy();
    expect(upload.headers["x-device-info"]).toBeTruthy();
    expect(upload.headers["content-type"]).toBeUndefined();
    expect(upload.body.get("message")).toBe("Here is the sign");
    expect((upload.body.get("file") as File).name).toBe("sign.jpg");

    expect(await screen.findByRole("progressbar", { name: "Upload progress" })).toBeInTheDocument();
    act(() => upload.progress(95, 100));
    expect(screen.getByRole("progressbar", { name: "Upload progress" })).toHaveAttribute(
      "aria-valuenow",
      "95",
    );
    expect(screen.getByText("Uploading… 95%")).toBeInTheDocument();

    act(() =>
      upload.respond(413, {
        success: false,
        errorType: "validation_error",
        message: "The file is too large. Please choose a file smaller than 100MB.",
      }),
    );
    expect(
      await screen.findByText("The file is too large. Please choose a file smaller than 100MB."),
    ).toBeInTheDocument();
    expect(screen.queryByRole("progressbar", { name: "Upload progress" })).not.toBeInTheDocument();
  });

  it("says 'Failed to upload file. Please try again.' when an upload fails for another reason", async () => {
    feedbackServer({ conversations: [conversation()], threads: { 7: [message()] } });
    fakeUploads(() => ({ status: 500, body: { success: false, message: "disk full" } }));
    const user = renderDialog();
    await openConversation(user, /Wrong address on map/);
    await user.upload(fileInput(), new File(["jpeg"], "sign.jpg", { type: "image/jpeg" }));
    await user.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText(MESSAGES.FEEDBACK_UPLOAD_FAILED)).toBeInTheDocument();
  });
});

describe("New feedback", () => {
  async function openForm(user: User) {
    await user.click(await screen.findByRole("button", { name: "New feedback" }));
    return screen.findByRole("form", { name: "New feedback" });
  }

  /** Fills the form with subject 'Map pin', message 'Pin is wrong' and maybe a photo, and sends it. */
  async function sendNewFeedback({ attach }: { attach: boolean }) {
    const user = renderDialog();
    await openForm(user);
    await user.type(screen.getByRole("textbox", { name: /Subject/ }), "Map pin");
    await user.type(screen.getByRole("textbox", { name: /Message/ }), "Pin is wrong");
    if (attach) await user.upload(fileInput(), new File(["jpeg"], "street.jpg", { type: "image/jpeg" }));
    await user.click(screen.getByRole("button", { name: "Send feedback" }));
  }

  it("refuses a blank subject or message", async () => {
    const server = feedbackServer();
    const user = renderDialog();
    await openForm(user);
    await user.type(screen.getByRole("textbox", { name: /Subject/ }), "   ");
    await user.click(screen.getByRole("button", { name: "Send feedback" }));
    expect(await screen.findByText("Subject is required")).toBeInTheDocument();
    expect(screen.getByText("Message is required")).toBeInTheDocument();
    expect(server.callsTo("POST /feedback/conversations")).toHaveLength(0);
  });

  it("shows the 'File Too Large' dialog for a 101 MB file and keeps no attachment", async () => {
    feedbackServer();
    const user = renderDialog();
    await openForm(user);
    await user.upload(fileInput(), bigFile("long.mp4", "video/mp4", 101 * MB));
    const dialog = await screen.findByRole("alertdialog", { name: "File Too Large" });
    expect(dialog).toHaveTextContent(
      "The selected file is 101.0MB. Please choose a file smaller than 100MB.",
    );
    await user.click(within(dialog).getByRole("button", { name: "OK" }));
    expect(screen.queryByText("long.mp4")).not.toBeInTheDocument();
  });

  it("refuses a file that is neither photo nor video", async () => {
    feedbackServer();
    const user = renderDialog();
    await openForm(user);
    // The picker's accept list would hide the file; a drop or a lenient browser can still hand it over.
    const lenient = userEvent.setup({ delay: null, applyAccept: false });
    await lenient.upload(fileInput(), new File(["%PDF"], "notes.pdf", { type: "application/pdf" }));
    expect(await screen.findByRole("alertdialog", { name: "Unsupported File Type" })).toBeInTheDocument();
    expect(screen.queryByText("notes.pdf")).not.toBeInTheDocument();
  });

  it("creates the conversation, uploads the file into it and opens the thread", async () => {
    const server = feedbackServer();
    const { uploads } = fakeUploads(() => ({
      status: 201,
      body: {
        success: true,
        data: {
          message: message({ id: 991, conversation_id: 99, message: "", media_attachments: [media()] }),
        },
      },
    }));
    await sendNewFeedback({ attach: true });

    expect(await screen.findByRole("heading", { name: "Map pin" })).toBeInTheDocument();
    expect(server.callsTo("POST /feedback/conversations")[0]?.body).toEqual({
      subject: "Map pin",
      message: "Pin is wrong",
    });
    expect(uploads.map((upload) => upload.path)).toEqual(["/feedback/conversations/99/upload"]);
  });

  it("says 'Feedback created, but attachment upload failed.' and still opens the thread", async () => {
    feedbackServer();
    fakeUploads(() => ({ status: 500, body: { success: false, message: "disk full" } }));
    await sendNewFeedback({ attach: true });
    expect(await screen.findByText(MESSAGES.FEEDBACK_ATTACHMENT_FAILED)).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Map pin" })).toBeInTheDocument();
  });

  it("says 'Failed to create feedback. Please try again.' when the conversation cannot be created", async () => {
    feedbackServer({}, { "POST /feedback/conversations": { status: 500, body: { success: false } } });
    await sendNewFeedback({ attach: false });
    expect(await screen.findByText(MESSAGES.FEEDBACK_CREATE_FAILED)).toBeInTheDocument();
    expect(screen.getByRole("form", { name: "New feedback" })).toBeInTheDocument();
  });
});
