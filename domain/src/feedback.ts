import { z } from "zod/mini";
import { FEEDBACK_ATTACHMENT_MAX_BYTES } from "./constants.js";

/** Image MIME types the feedback picker offers. */
export const ACCEPTED_IMAGE_TYPES = [
  "image/jpeg",
  "image/jpg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/heic",
] as const;
/** Video MIME types the feedback picker offers. */
export const ACCEPTED_VIDEO_TYPES = ["video/mp4", "video/quicktime", "video/webm"] as const;

/** Title of the dialog shown for an attachment of 100 MB or more. */
export const FILE_TOO_LARGE_TITLE = "File Too Large";
/** Title of the dialog shown for an attachment that is neither image nor video. */
export const UNSUPPORTED_FILE_TITLE = "Unsupported File Type";
/** Message of the dialog shown for an attachment that is neither image nor video. */
export const UNSUPPORTED_FILE_MESSAGE =
  "Please choose a photo or a video (for example JPEG, PNG, HEIC, MP4 or MOV).";

const IMAGE_EXTENSIONS = ["jpg", "jpeg", "png", "gif", "webp", "heic", "heif"];
const VIDEO_EXTENSIONS = ["mp4", "mov", "webm", "m4v"];

/** Image or video from the MIME type, falling back to the file extension when the browser gives no type. */
function attachmentKind(type: string, name: string | undefined): "image" | "video" | null {
  const mime = type.trim().toLowerCase();
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("video/")) return "video";
  if (mime !== "" && mime !== "application/octet-stream") return null;
  const extension = name?.toLowerCase().split(".").pop() ?? "";
  if (IMAGE_EXTENSIONS.includes(extension)) return "image";
  if (VIDEO_EXTENSIONS.includes(extension)) return "video";
  return null;
}

/** Checks a feedback attachment: under 100 MB and an image or video; else a dialog title and message. */
export function checkAttachment(file: {
  size: number;
  type: string;
  name?: string;
}): { ok: true; kind: "image" | "video" } | { ok: false; title: string; message: string } {
  if (!(file.size < FEEDBACK_ATTACHMENT_MAX_BYTES)) {
    const megabytes = (file.size / (1024 * 1024)).toFixed(1);
    return {
      ok: false,
      title: FILE_TOO_LARGE_TITLE,
      message: `The selected file is ${megabytes}MB. Please choose a file smaller than 100MB.`,
    };
  }
  const kind = attachmentKind(file.type, file.name);
  if (kind === null) return { ok: false, title: UNSUPPORTED_FILE_TITLE, message: UNSUPPORTED_FILE_MESSAGE };
  return { ok: true, kind };
}

/** Tells whether a video must be converted before playback (any video other than mp4 or webm). */
export function needsVideoConversion(type: string): boolean {
  const mime = type.trim().toLowerCase();
  return mime.startsWith("video/") && mime !== "video/mp4" && mime !== "video/webm";
}

/** Statuses of a feedback conversation. */
export const FEEDBACK_STATUSES = ["open", "in_progress", "closed"] as const;
/** A feedback conversation status. */
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** Shown instead of the reply box of a closed conversation. */
export const CLOSED_CONVERSATION_TEXT = "This conversation has been closed";

/** Tells whether a conversation can still receive messages (it is not closed). */
export function canReplyToConversation(status: string | null | undefined): boolean {
  return (status ?? "").trim().toLowerCase() !== "closed";
}

/** Unread badge text: '' for 0 or less, the count up to 9, '9+' above 9. */
export function formatBadgeCount(n: number): string {
  if (!Number.isFinite(n) || n < 1) return "";
  return n > 9 ? "9+" : String(Math.floor(n));
}

/** A message of feedback: trimmed, not blank, at most 5,000 characters. */
const messageText = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, "Message is required"),
    z.maxLength(5000, "Message must be at most 5,000 characters"),
  );

/** Body of POST /feedback/conversations: non-blank subject and message. */
export const newFeedbackSchema = z.object({
  subject: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, "Subject is required"),
      z.maxLength(200, "Subject must be at most 200 characters"),
    ),
  message: messageText,
});
/** A validated new feedback conversation. */
export type NewFeedback = z.output<typeof newFeedbackSchema>;

/** Body of POST /feedback/conversations/{id}/messages: non-blank text. */
export const feedbackMessageSchema = z.object({ message: messageText });
/** A validated feedback reply. */
export type FeedbackMessage = z.output<typeof feedbackMessageSchema>;

/** Body of PATCH /feedback/conversations/{id}/status. */
export const feedbackStatusSchema = z.object({ status: z.enum(FEEDBACK_STATUSES) });

/** The upload bar's ceiling while the progress is only simulated (SPEC 9: up to 85 %). */
export const SIMULATED_UPLOAD_PROGRESS_MAX = 85;
/** How fast the simulated progress closes in on its ceiling: about two thirds of it after this long. */
const SIMULATED_UPLOAD_TIME_CONSTANT_MS = 4_000;

/**
 * The upload bar's percentage (SPEC 9): a simulated figure that rises quickly at first and never
 * passes 85 % while the request is in flight, then the real figure once it is ahead of the simulated
 * one. Whole numbers from 0 to 100.
 */
export function uploadProgressShown(elapsedMs: number, realPercent: number): number {
  const simulated =
    Number.isFinite(elapsedMs) && elapsedMs > 0
      ? SIMULATED_UPLOAD_PROGRESS_MAX * (1 - Math.exp(-elapsedMs / SIMULATED_UPLOAD_TIME_CONSTANT_MS))
      : 0;
  const real = Number.isFinite(realPercent) ? Math.min(100, Math.max(0, realPercent)) : 0;
  return Math.floor(Math.max(Math.min(simulated, SIMULATED_UPLOAD_PROGRESS_MAX), real));
}
