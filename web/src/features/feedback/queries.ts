import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { BADGE_REFRESH_DELAY_MS, type FeedbackStatus, type NewFeedback } from "@turnout/domain";
import { useEffect } from "react";
import { subscribeLiveEvents } from "../../api/live-events";
import { type FeedbackThread, feedbackApi } from "./feedback-api";
import { type FeedbackSide, feedbackKeys, unreadKey } from "./unread";

/** While a video converts, the thread asks again this often in case the live event was missed. */
const CONVERSION_RECHECK_MS = 15_000;

/** The conversation id a live event names, or null. */
export function conversationIdOf(payload: unknown): number | null {
  const value = (payload as { conversationId?: unknown } | null)?.conversationId;
  const id = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
}

/** The signed-in member's own conversations, newest activity first. */
export function useMyConversations(enabled = true) {
  return useQuery({
    queryKey: feedbackKeys.list(),
    queryFn: ({ signal }) => feedbackApi.list(signal),
    enabled,
  });
}

/** Every conversation (admins), optionally of one status. */
export function useAdminConversations(status: FeedbackStatus | null) {
  return useQuery({
    queryKey: feedbackKeys.admin.list(status),
    queryFn: ({ signal }) => feedbackApi.admin.list(status, signal),
  });
}

/** The admins' overview figures. */
export function useFeedbackStats() {
  return useQuery({
    queryKey: feedbackKeys.admin.stats(),
    queryFn: ({ signal }) => feedbackApi.admin.stats(signal),
  });
}

/** One conversation with its messages; asked again now and then while a video is converting. */
export function useThread(id: number) {
  return useQuery({
    queryKey: feedbackKeys.thread(id),
    queryFn: ({ signal }) => feedbackApi.thread(id, signal),
    refetchInterval: (query) => (hasPendingConversion(query.state.data) ? CONVERSION_RECHECK_MS : false),
  });
}

function hasPendingConversion(thread: FeedbackThread | undefined): boolean {
  return (
    thread?.messages.some((message) =>
      message.media_attachments.some((media) => media.conversion_status === "pending"),
    ) ?? false
  );
}

/** Everything a change to conversations or messages may have altered, except open threads. */
function invalidateLists(queryClient: ReturnType<typeof useQueryClient>) {
  void queryClient.invalidateQueries({ queryKey: feedbackKeys.list() });
  void queryClient.invalidateQueries({ queryKey: [...feedbackKeys.admin.all, "list"] });
  void queryClient.invalidateQueries({ queryKey: feedbackKeys.admin.stats() });
}

/** After a message or upload: the thread, the lists and the counts are asked again. */
export function useRefreshConversation() {
  const queryClient = useQueryClient();
  return (id: number) => {
    void queryClient.invalidateQueries({ queryKey: feedbackKeys.thread(id) });
    invalidateLists(queryClient);
  };
}

/** Open a conversation (subject and first message). */
export function useCreateFeedback() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewFeedback) => feedbackApi.create(input),
    onSettled: () => invalidateLists(queryClient),
  });
}

/** Send a text message to a conversation. */
export function useSendMessage() {
  const refresh = useRefreshConversation();
  return useMutation({
    mutationFn: ({ id, message }: { id: number; message: string }) => feedbackApi.send(id, message),
    onSettled: (_data, _error, { id }) => refresh(id),
  });
}

/** Mark a conversation read for this side; the badge takes the new total the server answers. */
export function useMarkRead(side: FeedbackSide) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => feedbackApi.markRead(id),
    onSuccess: (unread) => {
      queryClient.setQueryData(unreadKey(side), unread);
      invalidateLists(queryClient);
    },
  });
}

/** Ask the badge's count again 0.5 s after a feedback screen opens (SPEC 9). */
export function useRefreshBadgeOnOpen(side: FeedbackSide, open: boolean) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(
      () => void queryClient.invalidateQueries({ queryKey: unreadKey(side) }),
      BADGE_REFRESH_DELAY_MS,
    );
    return () => clearTimeout(timer);
  }, [queryClient, side, open]);
}

/** Keeps the admins' lists and figures current: new conversations and messages, status changes. */
export function useAdminFeedbackLive() {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      subscribeLiveEvents(
        ["feedback:new-message", "feedback:new-conversation", "feedback:status-changed"],
        () => invalidateLists(queryClient),
      ),
    [queryClient],
  );
}

/** Change a conversation's status (admins). */
export function useSetStatus() {
  const refresh = useRefreshConversation();
  return useMutation({
    mutationFn: ({ id, status }: { id: number; status: FeedbackStatus }) =>
      feedbackApi.admin.setStatus(id, status),
    onSettled: (_data, _error, { id }) => refresh(id),
  });
}

/** Delete a conversation with its messages and files (admins). */
export function useDeleteConversation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => feedbackApi.admin.remove(id),
    onSuccess: (_data, id) => queryClient.removeQueries({ queryKey: feedbackKeys.thread(id) }),
    onSettled: () => {
      invalidateLists(queryClient);
      void queryClient.invalidateQueries({ queryKey: feedbackKeys.admin.unread() });
    },
  });
}
