import { CLOSED_CONVERSATION_TEXT, canReplyToConversation, type FeedbackStatus } from "@turnout/domain";
import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { feedbackConversations, feedbackMedia, feedbackMessages, users } from "../../db/schema.js";
import { conflict, notFound } from "../../errors.js";
import { recordAdminAction } from "../../shared/admin-actions.js";
import type { Actor } from "../../shared/guard.js";
import type { ConversationRow, MediaRow, MessageRow } from "./present.js";
import {
  assertDailyUploadRoom,
  assertMediaQueueRoom,
  UPLOAD_QUOTA_LOCK,
  type UploadQuota,
} from "./upload-quota.js";

export const CONVERSATION_NOT_FOUND = "Conversation not found.";

/**
 * Whose unread messages a count is about: a member's ('user': admin replies after user_last_read_at)
 * or the admins' ('admin': member messages after admin_last_read_at).
 */
export type FeedbackSide = "user" | "admin";

const c = feedbackConversations;
const m = feedbackMessages;

/** The side an actor reads a conversation from: its owner reads as the member, any other admin as admin. */
export function sideOf(actor: Actor, ownerId: number): FeedbackSide {
  return actor.userId === ownerId || !actor.isAdmin ? "user" : "admin";
}

/** Messages of the other side newer than this side's last read, of the conversation in the outer query. */
function unreadOf(side: FeedbackSide): SQL {
  const lastRead = side === "user" ? c.userLastReadAt : c.adminLastReadAt;
  return sql`${m.conversationId} = ${c.id} and ${m.isAdmin} = ${side === "user"}
    and ${m.createdAt} > coalesce(${lastRead}, '-infinity'::timestamptz)`;
}

function conversationQuery(db: Database, side: FeedbackSide) {
  return db
    .select({
      id: c.id,
      subject: c.subject,
      status: c.status,
      userId: c.userId,
      firstName: users.firstName,
      lastName: users.lastName,
      messageCount: sql<number>`(select count(*) from ${m} where ${m.conversationId} = ${c.id})`.mapWith(
        Number,
      ),
      unreadCount: sql<number>`(select count(*) from ${m} where ${unreadOf(side)})`.mapWith(Number),
      lastMessageAt: c.lastMessageAt,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    })
    .from(c)
    .innerJoin(users, eq(users.id, c.userId));
}

/** Conversations, newest activity first: one member's (`ownerId`) or all, optionally of one status. */
export function listConversations(
  db: Database,
  options: { side: FeedbackSide; ownerId?: number; status?: FeedbackStatus },
): Promise<ConversationRow[]> {
  const where = and(
    options.ownerId === undefined ? undefined : eq(c.userId, options.ownerId),
    options.status === undefined ? undefined : eq(c.status, options.status),
  );
  return conversationQuery(db, options.side).where(where).orderBy(desc(c.lastMessageAt), desc(c.id));
}

/** A conversation the actor may see (its owner, or any admin) read from `side`; 404 otherwise. */
export async function conversationFor(
  db: Database,
  actor: Actor,
  id: number,
  side?: FeedbackSide,
): Promise<ConversationRow> {
  const [owner] = await db.select({ userId: c.userId }).from(c).where(eq(c.id, id));
  if (!owner || (owner.userId !== actor.userId && !actor.isAdmin)) throw notFound(CONVERSATION_NOT_FOUND);
  const [row] = await conversationQuery(db, side ?? sideOf(actor, owner.userId)).where(eq(c.id, id));
  if (!row) throw notFound(CONVERSATION_NOT_FOUND);
  return row;
}

const sender = alias(users, "sender");

/** Messages of conversations (oldest first) with their senders' names and their media. */
export async function messagesOf(
  db: Database,
  where: { conversationId: number } | { messageId: number },
): Promise<{ messages: MessageRow[]; media: MediaRow[] }> {
  const messages = await db
    .select({
      id: m.id,
      conversationId: m.conversationId,
      message: m.message,
      isAdmin: m.isAdmin,
      senderFirstName: sender.firstName,
      senderLastName: sender.lastName,
      createdAt: m.createdAt,
    })
    .from(m)
    .leftJoin(sender, eq(sender.id, m.senderId))
    .where("messageId" in where ? eq(m.id, where.messageId) : eq(m.conversationId, where.conversationId))
    .orderBy(asc(m.createdAt), asc(m.id));
  const ids = messages.map((x) => x.id);
  const media = ids.length === 0 ? [] : await mediaOfMessages(db, ids);
  return { messages, media };
}

function mediaOfMessages(db: Database, messageIds: number[]): Promise<MediaRow[]> {
  return db
    .select({
      id: feedbackMedia.id,
      messageId: feedbackMedia.messageId,
      fileName: feedbackMedia.fileName,
      fileType: feedbackMedia.fileType,
      filePath: feedbackMedia.filePath,
      thumbnailPath: feedbackMedia.thumbnailPath,
      sizeBytes: feedbackMedia.sizeBytes,
      conversionStatus: feedbackMedia.conversionStatus,
    })
    .from(feedbackMedia)
    .where(inArray(feedbackMedia.messageId, messageIds))
    .orderBy(asc(feedbackMedia.id));
}

/** A stored attachment to record with a new message. */
export type NewMedia = {
  fileName: string;
  fileType: string;
  filePath: string;
  thumbnailPath: string | null;
  sizeBytes: number;
  conversionStatus: "none" | "pending" | "unavailable";
  /** A poster frame is still to be made by the media queue. */
  posterPending?: boolean;
};

/** Opens a conversation with its first message; admins hear of it live. */
export async function createConversation(
  ctx: ServiceContext,
  actor: Actor,
  input: { subject: string; message: string },
): Promise<{ conversationId: number; messageId: number }> {
  const created = await ctx.db.transaction(async (tx) => {
    const [conversation] = await tx
      .insert(c)
      .values({ userId: actor.userId, subject: input.subject, userLastReadAt: sql`now()` })
      .returning();
    const [message] = await tx
      .insert(m)
      .values({
        conversationId: conversation!.id,
        senderId: actor.userId,
        isAdmin: false,
        message: input.message,
      })
      .returning({ id: m.id });
    const [owner] = await tx
      .select({ firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .where(eq(users.id, actor.userId));
    return { conversation: conversation!, messageId: message!.id, owner: owner! };
  });
  const { conversation, messageId, owner } = created;
  ctx.live.feedback({
    name: "feedback:new-conversation",
    payload: {
      conversationId: conversation.id,
      subject: conversation.subject,
      user: { id: actor.userId, first_name: owner.firstName, last_name: owner.lastName },
    },
  });
  ctx.live.feedback({
    name: "feedback:new-message",
    ownerId: actor.userId,
    payload: { conversationId: conversation.id, messageId, isAdmin: false },
  });
  return { conversationId: conversation.id, messageId };
}

/**
 * Adds a message (with an attachment already stored, if any) to a conversation the actor may see.
 * 404 for a conversation they may not see, 409 once it is closed (checked under a row lock, so a
 * message never lands after a concurrent close). The sender's own side counts as read.
 */
export async function addMessage(
  ctx: ServiceContext,
  actor: Actor,
  conversationId: number,
  text: string,
  media?: NewMedia,
  quota?: UploadQuota,
): Promise<{ messageId: number; mediaId: number | null; ownerId: number }> {
  const result = await ctx.db.transaction(async (tx) => {
    if (media && quota) {
      // One upload of a user at a time past this point, so parallel uploads cannot each see room.
      await tx.execute(sql`select pg_advisory_xact_lock(${UPLOAD_QUOTA_LOCK}, ${actor.userId})`);
      await assertDailyUploadRoom(tx, actor.userId, media.sizeBytes, quota);
      if (media.posterPending || media.conversionStatus === "pending")
        await assertMediaQueueRoom(tx, actor.userId, quota);
    }
    const [conversation] = await tx
      .select({ userId: c.userId, status: c.status })
      .from(c)
      .where(eq(c.id, conversationId))
      .for("update");
    if (!conversation || (conversation.userId !== actor.userId && !actor.isAdmin)) {
      throw notFound(CONVERSATION_NOT_FOUND);
    }
    if (!canReplyToConversation(conversation.status)) throw conflict(CLOSED_CONVERSATION_TEXT);
    const isAdmin = sideOf(actor, conversation.userId) === "admin";
    const [message] = await tx
      .insert(m)
      .values({ conversationId, senderId: actor.userId, isAdmin, message: text })
      .returning({ id: m.id });
    let mediaId: number | null = null;
    if (media) {
      const [row] = await tx
        .insert(feedbackMedia)
        .values({ messageId: message!.id, ...media })
        .returning({ id: feedbackMedia.id });
      mediaId = row!.id;
    }
    await tx
      .update(c)
      .set({
        lastMessageAt: sql`now()`,
        updatedAt: sql`now()`,
        // The sender has read the thread (an admin in their own conversation: both sides).
        ...(conversation.userId === actor.userId ? { userLastReadAt: sql`now()` } : {}),
        ...(actor.isAdmin ? { adminLastReadAt: sql`now()` } : {}),
      })
      .where(eq(c.id, conversationId));
    return { messageId: message!.id, mediaId, ownerId: conversation.userId, isAdmin };
  });
  ctx.live.feedback({
    name: "feedback:new-message",
    ownerId: result.ownerId,
    payload: { conversationId, messageId: result.messageId, isAdmin: result.isAdmin },
  });
  return result;
}

/** Whether a conversation can still take a message: 404 / 409 as addMessage, before an upload is read. */
export async function assertCanPost(db: Database, actor: Actor, conversationId: number): Promise<void> {
  const [conversation] = await db
    .select({ userId: c.userId, status: c.status })
    .from(c)
    .where(eq(c.id, conversationId));
  if (!conversation || (conversation.userId !== actor.userId && !actor.isAdmin)) {
    throw notFound(CONVERSATION_NOT_FOUND);
  }
  if (!canReplyToConversation(conversation.status)) throw conflict(CLOSED_CONVERSATION_TEXT);
}

/** Sets a conversation's status (admin); recorded as an admin action; the owner and admins hear of it. */
export async function setConversationStatus(
  ctx: ServiceContext,
  actor: Actor,
  ip: string | null,
  id: number,
  status: FeedbackStatus,
): Promise<void> {
  const ownerId = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(c)
      .set({ status, updatedAt: sql`now()` })
      .where(eq(c.id, id))
      .returning({ userId: c.userId });
    if (!row) throw notFound(CONVERSATION_NOT_FOUND);
    await recordAdminAction(tx, actor, ip, {
      type: "admin_feedback_status_changed",
      message: `Feedback conversation ${id} marked ${status.replace("_", " ")}`,
      details: { conversation_id: id, status },
    });
    return row.userId;
  });
  ctx.live.feedback({
    name: "feedback:status-changed",
    ownerId,
    payload: { conversationId: id, status },
  });
}

/** Stored file names (files, thumbnails) of some conversations' media. */
export async function mediaFileNames(db: Database, where: { conversationId: number } | { userId: number }) {
  const rows = await db
    .select({ file: feedbackMedia.filePath, thumbnail: feedbackMedia.thumbnailPath })
    .from(feedbackMedia)
    .innerJoin(m, eq(m.id, feedbackMedia.messageId))
    .innerJoin(c, eq(c.id, m.conversationId))
    .where("userId" in where ? eq(c.userId, where.userId) : eq(c.id, where.conversationId));
  return rows.flatMap((r) => [r.file, r.thumbnail]);
}

/**
 * Deletes a conversation with its messages and media rows (admin, recorded) and resolves to the stored
 * file names to remove once the transaction has committed.
 */
export async function deleteConversation(
  ctx: ServiceContext,
  actor: Actor,
  ip: string | null,
  id: number,
): Promise<(string | null)[]> {
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select({ id: c.id }).from(c).where(eq(c.id, id)).for("update");
    if (!row) throw notFound(CONVERSATION_NOT_FOUND);
    const files = await mediaFileNames(tx, { conversationId: id });
    await tx.delete(c).where(eq(c.id, id));
    await recordAdminAction(tx, actor, ip, {
      type: "admin_feedback_deleted",
      message: `Feedback conversation ${id} deleted`,
      details: { conversation_id: id, files: files.filter(Boolean).length },
    });
    return files;
  });
}

/** Marks a conversation read for the actor's side (both sides for an admin in their own conversation). */
export async function markRead(db: Database, actor: Actor, conversation: ConversationRow): Promise<void> {
  const owner = conversation.userId === actor.userId;
  await db
    .update(c)
    .set({
      ...(owner ? { userLastReadAt: sql`now()` } : {}),
      ...(actor.isAdmin ? { adminLastReadAt: sql`now()` } : {}),
    })
    .where(eq(c.id, conversation.id));
}

/** Unread messages for a badge: a member's in their own conversations, or the admins' in all. */
export async function unreadTotal(db: Database, side: FeedbackSide, userId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(m)
    .innerJoin(c, eq(c.id, m.conversationId))
    .where(and(unreadOf(side), side === "user" ? eq(c.userId, userId) : undefined));
  return row?.n ?? 0;
}

/** The admins' figures. */
export async function feedbackStats(db: Database) {
  const [conversations] = await db
    .select({
      total: sql<number>`count(*)`.mapWith(Number),
      open: sql<number>`count(*) filter (where ${c.status} = 'open')`.mapWith(Number),
      inProgress: sql<number>`count(*) filter (where ${c.status} = 'in_progress')`.mapWith(Number),
      closed: sql<number>`count(*) filter (where ${c.status} = 'closed')`.mapWith(Number),
    })
    .from(c);
  const [messages] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(m);
  const [media] = await db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      bytes: sql<number>`coalesce(sum(${feedbackMedia.sizeBytes}), 0)`.mapWith(Number),
    })
    .from(feedbackMedia);
  return {
    total: conversations?.total ?? 0,
    open: conversations?.open ?? 0,
    in_progress: conversations?.inProgress ?? 0,
    closed: conversations?.closed ?? 0,
    unread_count: await unreadTotal(db, "admin", 0),
    messages: messages?.n ?? 0,
    attachments: media?.n ?? 0,
    attachment_bytes: media?.bytes ?? 0,
  };
}
