import {
  FEEDBACK_STATUSES,
  type FeedbackStatus,
  feedbackMessageSchema,
  type NewFeedback,
  newFeedbackSchema,
} from "@turnout/domain";
import { z } from "zod/mini";
import { api, apiFailure, buildHeaders, buildUrl, networkFailure } from "../../api/client";
import { orElse, orEmpty } from "../../api/schema-helpers";
import { countSchema as count, unreadSchema } from "./unread";

const CONVERSION_STATUSES = ["none", "pending", "done", "failed", "unavailable"] as const;
/** Where a video's conversion to mp4 stands (the contract's MediaAttachment.conversion_status). */
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

const text = orElse(z.string(), "");

/** A status the web knows; anything else reads as open (it can still take messages). */
function normalizeStatus(value: string | null | undefined): FeedbackStatus {
  const status = (value ?? "").trim().toLowerCase();
  return (FEEDBACK_STATUSES as readonly string[]).includes(status) ? (status as FeedbackStatus) : "open";
}

/** A photo or video attached to a message; missing fields read as empty, unknown states as 'none'. */
export const mediaAttachmentSchema = z.pipe(
  z.object({
    id: z.number(),
    file_name: text,
    file_type: text,
    kind: z.nullish(z.string()),
    size_bytes: count,
    file_path: z.string(),
    thumbnail_path: z.pipe(
      z.nullish(z.string()),
      z.transform((value) => value || null),
    ),
    conversion_status: z.pipe(
      z.nullish(z.string()),
      z.transform(
        (value): ConversionStatus =>
          (CONVERSION_STATUSES as readonly string[]).includes(value ?? "")
            ? (value as ConversionStatus)
            : "none",
      ),
    ),
  }),
  z.transform(({ kind, ...media }) => ({
    ...media,
    kind:
      kind === "video" || kind === "image"
        ? kind
        : media.file_type.toLowerCase().startsWith("video/")
          ? ("video" as const)
          : ("image" as const),
  })),
);
/** A media attachment, cleaned for display. */
export type MediaAttachment = z.output<typeof mediaAttachmentSchema>;

/** One message of a conversation, from the member (is_admin false) or an admin. */
export const feedbackMessageItemSchema = z.object({
  id: z.number(),
  conversation_id: z.nullish(z.number()),
  message: text,
  is_admin: orElse(z.boolean(), false),
  sender_name: z.pipe(
    z.nullish(z.string()),
    z.transform((value) => value?.trim() || null),
  ),
  created_at: text,
  media_attachments: orEmpty(z.array(mediaAttachmentSchema)),
});
/** A feedback message, cleaned for display. */
export type FeedbackMessageItem = z.output<typeof feedbackMessageItemSchema>;

/** A feedback conversation as the lists show it. */
export const conversationSchema = z.object({
  id: z.number(),
  subject: text,
  status: z.pipe(z.nullish(z.string()), z.transform(normalizeStatus)),
  message_count: count,
  unread_count: count,
  last_message_at: text,
  created_at: text,
  updated_at: text,
  user: orElse(z.object({ id: z.number(), first_name: text, last_name: text }), null),
});
/** A feedback conversation, cleaned for display. */
export type Conversation = z.output<typeof conversationSchema>;

/** A conversation with its messages, oldest first. */
export const threadSchema = z.object({
  conversation: conversationSchema,
  messages: orEmpty(z.array(feedbackMessageItemSchema)),
});
/** A conversation with its messages. */
export type FeedbackThread = z.output<typeof threadSchema>;

/** The admin's overview figures (GET /feedback/admin/stats). */
export const feedbackStatsSchema = z.object({
  total: count,
  open: count,
  in_progress: count,
  closed: count,
  unread_count: count,
  messages: count,
  attachments: count,
  attachment_bytes: count,
  ffmpeg_available: orElse(z.boolean(), true),
});
/** The admin's overview figures. */
export type FeedbackStats = z.output<typeof feedbackStatsSchema>;

const createdSchema = z.object({ conversation: conversationSchema, message: feedbackMessageItemSchema });
const messageReplySchema = z.object({ message: feedbackMessageItemSchema });
const conversationReplySchema = z.object({ conversation: conversationSchema });

interface Envelope {
  success: boolean;
  data: unknown;
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sends a file (and optional text) to a conversation as multipart, over XMLHttpRequest because fetch
 * reports no upload progress. Carries the client's headers and turns a refusal into the client's
 * ApiError (a 401 ends the session the usual way). `onProgress` gets the real percentage sent.
 */
async function uploadAttachment(
  conversationId: number,
  file: File,
  message: string,
  onProgress: (percent: number) => void,
  signal?: AbortSignal,
): Promise<FeedbackMessageItem> {
  const form = new FormData();
  form.append("message", message);
  form.append("file", file, file.name);
  const headers = await buildHeaders(form);
  const parsed = await new Promise<unknown>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", buildUrl(`/feedback/conversations/${conversationId}/upload`, undefined));
    for (const [name, value] of headers) request.setRequestHeader(name, value);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) onProgress((event.loaded / event.total) * 100);
    });
    request.addEventListener("load", () => {
      const body = parseBody(request.responseText);
      if (request.status >= 200 && request.status < 300) {
        resolve(body);
        return;
      }
      const response = new Response(null, {
        status: request.status,
        statusText: request.statusText,
        headers: { "Retry-After": request.getResponseHeader("Retry-After") ?? "" },
      });
      reject(apiFailure(response, body));
    });
    request.addEventListener("error", () => reject(networkFailure()));
    request.addEventListener("abort", () => reject(new DOMException("Upload cancelled", "AbortError")));
    if (signal?.aborted) {
      reject(new DOMException("Upload cancelled", "AbortError"));
      return;
    }
    signal?.addEventListener("abort", () => request.abort(), { once: true });
    request.send(form);
  });
  return messageReplySchema.parse((parsed as Envelope | undefined)?.data).message;
}

/** Every feedback call of the contract (issue 13). */
export const feedbackApi = {
  async list(signal?: AbortSignal): Promise<Conversation[]> {
    const reply = await api.get<Envelope>("/feedback/conversations", { signal });
    return z.array(conversationSchema).parse(reply.data);
  },

  async create(input: NewFeedback): Promise<{ conversation: Conversation; message: FeedbackMessageItem }> {
    const reply = await api.post<Envelope>("/feedback/conversations", newFeedbackSchema.parse(input));
    return createdSchema.parse(reply.data);
  },

  async thread(id: number, signal?: AbortSignal): Promise<FeedbackThread> {
    const reply = await api.get<Envelope>(`/feedback/conversations/${id}/messages`, { signal });
    return threadSchema.parse(reply.data);
  },

  async send(id: number, message: string): Promise<FeedbackMessageItem> {
    const body = feedbackMessageSchema.parse({ message });
    const reply = await api.post<Envelope>(`/feedback/conversations/${id}/messages`, body);
    return messageReplySchema.parse(reply.data).message;
  },

  async markRead(id: number): Promise<number> {
    const reply = await api.post<Envelope>(`/feedback/conversations/${id}/mark-read`);
    return unreadSchema.parse(reply.data).unread_count;
  },

  uploadAttachment,

  admin: {
    async list(status: FeedbackStatus | null, signal?: AbortSignal): Promise<Conversation[]> {
      const reply = await api.get<Envelope>("/feedback/admin/conversations", {
        query: { status: status ?? undefined },
        signal,
      });
      return z.array(conversationSchema).parse(reply.data);
    },

    async stats(signal?: AbortSignal): Promise<FeedbackStats> {
      const reply = await api.get<Envelope>("/feedback/admin/stats", { signal });
      return feedbackStatsSchema.parse(reply.data);
    },

    async setStatus(id: number, status: FeedbackStatus): Promise<Conversation> {
      const reply = await api.patch<Envelope>(`/feedback/conversations/${id}/status`, { status });
      return conversationReplySchema.parse(reply.data).conversation;
    },

    async remove(id: number): Promise<void> {
      await api.delete(`/feedback/conversations/${id}`);
    },
  },
};
