import type { MediaStore } from "./store.js";

/** A conversation row with its owner and counts, as the list and thread queries return it. */
export type ConversationRow = {
  id: number;
  subject: string;
  status: string;
  userId: number;
  firstName: string;
  lastName: string;
  messageCount: number;
  unreadCount: number;
  lastMessageAt: Date;
  createdAt: Date;
  updatedAt: Date;
};

export type MessageRow = {
  id: number;
  conversationId: number;
  message: string;
  isAdmin: boolean;
  senderFirstName: string | null;
  senderLastName: string | null;
  createdAt: Date;
};

export type MediaRow = {
  id: number;
  messageId: number;
  fileName: string;
  fileType: string;
  filePath: string;
  thumbnailPath: string | null;
  sizeBytes: number;
  conversionStatus: string;
};

/** Conversation as the contract shapes it. */
export function presentConversation(c: ConversationRow) {
  return {
    id: c.id,
    subject: c.subject,
    status: c.status,
    message_count: c.messageCount,
    unread_count: c.unreadCount,
    last_message_at: c.lastMessageAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    user: { id: c.userId, first_name: c.firstName, last_name: c.lastName },
  };
}

/** MediaAttachment: file and thumbnail as freshly signed links. */
export function presentMedia(m: MediaRow, store: MediaStore) {
  return {
    id: m.id,
    file_name: m.fileName,
    file_type: m.fileType,
    kind: m.fileType.startsWith("video/") ? ("video" as const) : ("image" as const),
    size_bytes: m.sizeBytes,
    file_path: store.signedUrl(m.filePath),
    thumbnail_path: m.thumbnailPath ? store.signedUrl(m.thumbnailPath) : null,
    conversion_status: m.conversionStatus,
  };
}

/** Message with its attachments. */
export function presentMessage(m: MessageRow, media: readonly MediaRow[], store: MediaStore) {
  return {
    id: m.id,
    conversation_id: m.conversationId,
    message: m.message,
    is_admin: m.isAdmin,
    sender_name: m.senderFirstName === null ? null : `${m.senderFirstName} ${m.senderLastName ?? ""}`.trim(),
    created_at: m.createdAt.toISOString(),
    media_attachments: media.filter((x) => x.messageId === m.id).map((x) => presentMedia(x, store)),
  };
}
