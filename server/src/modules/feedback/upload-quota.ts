// What one member may upload (bytes a day, videos waiting in the media queue) and the lock addMessage checks it under.
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { feedbackMedia, feedbackMessages } from "../../db/schema.js";
import { rateLimited } from "../../errors.js";

const m = feedbackMessages;

/** What one member may upload (config.media): videos in the media queue at once, bytes a day. */
export type UploadQuota = { pendingPerUser: number; dailyBytesPerUser: number };

/** Bytes a user has uploaded in the last 24 hours, and when the oldest of them leaves that window. */
export async function uploadedToday(
  db: Database,
  userId: number,
): Promise<{ bytes: number; oldestAt: Date | null }> {
  const [row] = await db
    .select({
      bytes: sql<string>`coalesce(sum(${feedbackMedia.sizeBytes}), 0)`,
      oldest: sql<string | null>`min(${feedbackMedia.createdAt})`,
    })
    .from(feedbackMedia)
    .innerJoin(m, eq(m.id, feedbackMedia.messageId))
    .where(and(eq(m.senderId, userId), sql`${feedbackMedia.createdAt} > now() - interval '1 day'`));
  return { bytes: Number(row?.bytes ?? 0), oldestAt: row?.oldest ? new Date(row.oldest) : null };
}

/**
 * Refuses (429, with the seconds until it would pass) an upload of `bytes` that would take the user
 * over their bytes in 24 hours, before its body is read (the declared length) and again when it is
 * stored (the real size).
 */
export async function assertDailyUploadRoom(
  db: Database,
  userId: number,
  bytes: number,
  quota: UploadQuota,
): Promise<void> {
  const today = await uploadedToday(db, userId);
  if (today.bytes + bytes <= quota.dailyBytesPerUser) return;
  const mb = (n: number) => Math.ceil(n / (1024 * 1024));
  const retryAfter = today.oldestAt ? (today.oldestAt.getTime() + 86_400_000 - Date.now()) / 1000 : 3600;
  throw rateLimited(
    `You have uploaded ${mb(today.bytes)} MB in the last 24 hours; the limit is ${mb(quota.dailyBytesPerUser)} MB a day. Please try again later.`,
    retryAfter,
  );
}

/** Refuses (429) a video while the user already has `pendingPerUser` videos in the media queue. */
export async function assertMediaQueueRoom(tx: Database, userId: number, quota: UploadQuota): Promise<void> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)` })
    .from(feedbackMedia)
    .innerJoin(m, eq(m.id, feedbackMedia.messageId))
    .where(
      and(
        eq(m.senderId, userId),
        sql`(${feedbackMedia.conversionStatus} = 'pending' or ${feedbackMedia.posterPending})`,
      ),
    );
  const waiting = Number(row?.n ?? 0);
  if (waiting < quota.pendingPerUser) return;
  throw rateLimited(
    `You have ${waiting} video${waiting === 1 ? "" : "s"} still being processed; please send this one once ${waiting === 1 ? "it is" : "they are"} ready.`,
    60,
  );
}

/** The advisory lock class of a user's upload checks (the second key is the user id). */
export const UPLOAD_QUOTA_LOCK = 2_800_029;
