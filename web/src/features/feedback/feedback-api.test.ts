import { MESSAGES } from "@turnout/domain";
import { ApiError } from "../../api/errors";
import { onSessionNotice, type SessionNotice } from "../../api/session-events";
import { fakeUploads } from "../../testing/feedback/fake-upload";
import { storeSession } from "../../testing/session-fixtures";
import { conversationSchema, feedbackApi, mediaAttachmentSchema } from "./feedback-api";

const photo = () => new File(["jpeg"], "a.jpg", { type: "image/jpeg" });

describe("feedback replies", () => {
  it("read leniently: missing fields take defaults, unknown states a safe value", () => {
    expect(
      conversationSchema.parse({ id: 1, subject: null, status: "archived", message_count: null, user: null }),
    ).toMatchObject({ id: 1, subject: "", status: "open", message_count: 0, unread_count: 0, user: null });
    expect(
      mediaAttachmentSchema.parse({
        id: 2,
        file_path: "/feedback-uploads/x.mov",
        file_type: "video/quicktime",
        conversion_status: "queued",
      }),
    ).toMatchObject({ kind: "video", thumbnail_path: null, conversion_status: "none", file_name: "" });
  });
});

describe("uploadAttachment", () => {
  it("answers the message the server made", async () => {
    fakeUploads(() => ({
      status: 201,
      body: {
        success: true,
        data: { message: { id: 5, message: "", is_admin: false, media_attachments: [] } },
      },
    }));
    const progress: number[] = [];
    const sent = await feedbackApi.uploadAttachment(3, photo(), "", (percent) => progress.push(percent));
    expect(sent).toMatchObject({ id: 5, message: "", sender_name: null, media_attachments: [] });
  });

  it("reports the real progress as a percentage", async () => {
    const { uploads } = fakeUploads();
    const progress: number[] = [];
    const done = feedbackApi.uploadAttachment(3, photo(), "", (percent) => progress.push(percent));
    await vi.waitFor(() => expect(uploads).toHaveLength(1));
    uploads[0]!.progress(25, 100);
    uploads[0]!.progress(100, 100);
    uploads[0]!.respond(201, { success: true, data: { message: { id: 6 } } });
    await done;
    expect(progress).toEqual([25, 100]);
  });

  it("turns a 401 into the client's ApiError and the session-ended notice", async () => {
    storeSession();
    fakeUploads(() => ({
      status: 401,
      body: { success: false, message: "Token expired", reason: "expired" },
    }));
    const notices: SessionNotice[] = [];
    const stop = onSessionNotice((notice) => notices.push(notice));
    const failure = await feedbackApi
      .uploadAttachment(3, photo(), "", () => undefined)
      .catch((error) => error);
    stop();
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 401 });
    expect(notices).toEqual([{ kind: "expired", message: MESSAGES.SESSION_EXPIRED }]);
  });

  it("keeps the server's words for a refusal and says a lost connection plainly", async () => {
    fakeUploads(() => ({
      status: 400,
      body: { success: false, errorType: "validation_error", message: "This file type is not supported." },
    }));
    await expect(feedbackApi.uploadAttachment(3, photo(), "", () => undefined)).rejects.toMatchObject({
      status: 400,
      errorType: "validation_error",
      serverMessage: "This file type is not supported.",
    });

    const { uploads } = fakeUploads();
    const lost = feedbackApi.uploadAttachment(3, photo(), "", () => undefined);
    await vi.waitFor(() => expect(uploads).toHaveLength(1));
    uploads[0]!.fail();
    await expect(lost).rejects.toMatchObject({ status: 0, errorType: "network_error" });
  });

  it("stops when its signal aborts", async () => {
    const { uploads } = fakeUploads();
    const controller = new AbortController();
    const upload = feedbackApi.uploadAttachment(3, photo(), "", () => undefined, controller.signal);
    await vi.waitFor(() => expect(uploads).toHaveLength(1));
    controller.abort();
    await expect(upload).rejects.toMatchObject({ name: "AbortError" });
  });
});
