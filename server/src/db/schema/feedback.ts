// Feedback conversations, messages and media.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  varchar,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns.js";
import { users } from "./users.js";

export const feedbackConversations = pgTable(
  "feedback_conversations",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    /** open | in_progress | closed */
    status: varchar("status", { length: 16 }).notNull().default("open"),
    userLastReadAt: timestamp("user_last_read_at", { withTimezone: true }),
    adminLastReadAt: timestamp("admin_last_read_at", { withTimezone: true }),
    lastMessageAt: timestamp("last_message_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("feedback_conversations_user_idx").on(t.userId),
    index("feedback_conversations_status_idx").on(t.status),
  ],
);

export const feedbackMessages = pgTable(
  "feedback_messages",
  {
    id: serial("id").primaryKey(),
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => feedbackConversations.id, { onDelete: "cascade" }),
    senderId: integer("sender_id").references(() => users.id, { onDelete: "set null" }),
    isAdmin: boolean("is_admin").notNull().default(false),
    message: text("message").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("feedback_messages_conversation_idx").on(t.conversationId, t.createdAt)],
);

export const feedbackMedia = pgTable(
  "feedback_media",
  {
    id: serial("id").primaryKey(),
    messageId: integer("message_id")
      .notNull()
      .references(() => feedbackMessages.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    fileType: varchar("file_type", { length: 128 }).notNull(),
    /** The stored file's name in DATA_DIR/feedback-uploads (random hex + extension), never a path. */
    filePath: text("file_path").notNull(),
    /** The stored name of the image thumbnail (webp) or video poster (jpeg), when one could be made. */
    thumbnailPath: text("thumbnail_path"),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    /** none | pending | done | failed | unavailable (no ffmpeg on the server) */
    conversionStatus: varchar("conversion_status", { length: 16 }).notNull().default("none"),
    /** Conversion tries started so far (the worker gives up after a few). */
    conversionAttempts: integer("conversion_attempts").notNull().default(0),
    /** A worker holds this pending row until then; after it, another instance may take it over. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** A video's poster frame is still to be made (by the media queue, not the upload request). */
    posterPending: boolean("poster_pending").notNull().default(false),
    /** ffmpeg works on this row now (until lease_until): counted against MEDIA_CONCURRENCY. */
    jobRunning: boolean("job_running").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index("feedback_media_message_idx").on(t.messageId),
    // /feedback-uploads/<name> finds its row by the stored name (a file or its thumbnail).
    index("feedback_media_file_idx").on(t.filePath),
    index("feedback_media_thumbnail_idx").on(t.thumbnailPath),
    index("feedback_media_jobs_idx")
      .on(t.leaseUntil)
      .where(sql`${t.conversionStatus} = 'pending' or ${t.posterPending}`),
  ],
);
