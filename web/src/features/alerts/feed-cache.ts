import { z } from "zod/mini";
import { storage } from "../../api/storage";
import { alertGroupSchema } from "./alerts-api";
import { type FeedItem, leadingItems, toFeedItem } from "./feed-items";

/** How many alerts the offline copy keeps at most (a phone's localStorage is small). */
export const OFFLINE_CACHE_MAX_ALERTS = 200;

const cachedFeedSchema = z.object({
  savedAt: z.number(),
  groups: z.array(alertGroupSchema),
});

/** The most recently loaded first cards of the unfiltered feed, and when they were loaded. */
export interface CachedFeed {
  savedAt: number;
  items: FeedItem[];
}

/** The user's offline copy, or null when there is none (or it cannot be read). */
export function readCachedFeed(userId: number | string): CachedFeed | null {
  const cached = storage.getAlertCache(userId, cachedFeedSchema);
  if (!cached) return null;
  return { savedAt: cached.savedAt, items: cached.groups.map(toFeedItem) };
}

/** Keeps the leading cards (at most OFFLINE_CACHE_MAX_ALERTS alerts) as the user's offline copy. */
export function writeCachedFeed(userId: number | string, items: readonly FeedItem[], savedAt: number): void {
  const groups = leadingItems(items, OFFLINE_CACHE_MAX_ALERTS).map((item) => item.group);
  storage.setAlertCache(userId, { savedAt, groups });
}
