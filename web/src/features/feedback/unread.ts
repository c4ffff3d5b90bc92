// What the dashboard shows of feedback on the feed's first paint: the unread badge. Kept apart from
// the conversations' API and queries so that the feed does not load them (issue 31).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { FEEDBACK_UNREAD_POLL_MS, type FeedbackStatus } from "@turnout/domain";
import { useEffect } from "react";
import { z } from "zod/mini";
import { api } from "../../api/client";
import { type RelayedLiveEvent, subscribeLiveEvents } from "../../api/live-events";
import { orElse } from "../../api/schema-helpers";
import { firstContentShown } from "../../ui/first-content";

/** Whose side of the conversations the screen shows: the member's own, or the admins'. */
export type FeedbackSide = "user" | "admin";

export const feedbackKeys = {
  all: ["feedback"] as const,
  list: () => [...feedbackKeys.all, "list"] as const,
  thread: (id: number) => [...feedbackKeys.all, "thread", id] as const,
  unread: () => [...feedbackKeys.all, "unread"] as const,
  admin: {
    all: ["feedback", "admin"] as const,
    list: (status: FeedbackStatus | null) => [...feedbackKeys.admin.all, "list", status ?? "all"] as const,
    unread: () => [...feedbackKeys.admin.all, "unread"] as const,
    stats: () => [...feedbackKeys.admin.all, "stats"] as const,
  },
};

/** The unread count the badge of that side shows. */
export function unreadKey(side: FeedbackSide) {
  return side === "admin" ? feedbackKeys.admin.unread() : feedbackKeys.unread();
}

/** A count the server may leave out: 0. */
export const countSchema = orElse(z.number(), 0);

/** The server's answer with an unread count (the badge's, and what marking read leaves). */
export const unreadSchema = z.object({ unread_count: countSchema });

const UNREAD_PATHS: Record<FeedbackSide, string> = {
  user: "/feedback/unread-count",
  admin: "/feedback/admin/unread-count",
};

/** The unread count of one side, as the server knows it now. */
async function fetchUnreadCount(side: FeedbackSide, signal?: AbortSignal): Promise<number> {
  // The badge is not the first cards' business: its first count waits until they are on screen.
  await firstContentShown;
  const reply = await api.get<{ data: unknown }>(UNREAD_PATHS[side], { signal });
  return unreadSchema.parse(reply.data).unread_count;
}

/** The live events that change a side's count. */
const UNREAD_EVENTS: Record<FeedbackSide, readonly RelayedLiveEvent[]> = {
  user: ["feedback:new-message", "feedback:status-changed"],
  admin: ["feedback:new-message", "feedback:new-conversation"],
};

/** One side's unread count, 0 until known (and while not `enabled`): polled, and asked again on its events. */
function useUnreadCount(side: FeedbackSide, enabled: boolean): number {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: unreadKey(side),
    queryFn: ({ signal }) => fetchUnreadCount(side, signal),
    refetchInterval: FEEDBACK_UNREAD_POLL_MS,
    enabled,
  });
  useEffect(() => {
    if (!enabled) return;
    return subscribeLiveEvents(UNREAD_EVENTS[side], (event) => {
      if (event !== "feedback:status-changed")
        void queryClient.invalidateQueries({ queryKey: unreadKey(side) });
      // A member's own conversation list shows what changed too.
      if (side === "user") void queryClient.invalidateQueries({ queryKey: feedbackKeys.list() });
    });
  }, [queryClient, side, enabled]);
  return enabled ? (data ?? 0) : 0;
}

/**
 * The member's unread feedback (the avatar and menu badge), 0 until known. Polled every 30 s and
 * asked again on `feedback:new-message`, which also refreshes the conversation list (as does a status
 * change). Admins use the admin count instead: pass `enabled` false for them.
 */
export function useFeedbackUnread(enabled: boolean): number {
  return useUnreadCount("user", enabled);
}

/**
 * The admins' unread feedback (the Feedback tab's orange badge), 0 until known. New messages and new
 * conversations on the admin channel refresh it at once.
 */
export function useAdminFeedbackUnread(enabled: boolean): number {
  return useUnreadCount("admin", enabled);
}
