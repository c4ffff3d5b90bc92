// The feed's keyset cursor: opaque to clients, (sent_at, id) of the last alert of a page.
import { type SQL, sql } from "drizzle-orm";
import { alerts } from "../../db/schema.js";
import { badRequest } from "../../errors.js";

/** The feed's keyset position: the last alert's time (sent_at, in ms) and id; opaque to clients. */
export type FeedCursor = { at: number; id: number };

export function encodeCursor(alert: { sentAt: Date; id: number }): string {
  return Buffer.from(JSON.stringify({ at: alert.sentAt.getTime(), id: alert.id }), "utf8").toString(
    "base64url",
  );
}

export function decodeCursor(cursor: string): FeedCursor {
  try {
    const { at, id } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as {
      at?: unknown;
      id?: unknown;
    };
    const validId = typeof id === "number" && Number.isSafeInteger(id) && id > 0;
    // A Date holds up to 8.64e15 ms either side of 1970.
    if (validId && typeof at === "number" && Number.isInteger(at) && Math.abs(at) <= 8.64e15)
      return { at, id };
  } catch {
    // fall through
  }
  throw badRequest("The cursor is not valid; start again without it.");
}

/** Alerts after the cursor in the feed's order, (sent_at, id) descending: one row comparison the index reads. */
export function afterCursor(cursor: FeedCursor): SQL {
  return sql`(${alerts.sentAt}, ${alerts.id}) < (${new Date(cursor.at).toISOString()}::timestamptz, ${cursor.id})`;
}
