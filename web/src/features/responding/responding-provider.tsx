import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useMemo, useSyncExternalStore } from "react";
import { isApiError } from "../../api/errors";
import { subscribeLiveEvents } from "../../api/live-events";
import { useOnlineStatus } from "../../ui/use-online-status";
import { PendingAnswers, refOf } from "./pending-answers";
import { applyCounts, applyJobResponses, invalidatePeople, markClosed, respondingKeys } from "./queries";
import { respondingApi } from "./responding-api";

/** While answers wait and the network is up but the server is not answering, try again this often. */
export const PENDING_RETRY_MS = 30_000;

interface RespondingContextValue {
  pending: PendingAnswers;
  /** Send the kept answers now (they go oldest first, each with the time it was given). */
  flush: () => Promise<void>;
}

const RespondingContext = createContext<RespondingContextValue | null>(null);

/** The responding context; the dashboard provides it around the feed and the console. */
export function useResponding(): RespondingContextValue {
  const value = useContext(RespondingContext);
  if (!value) throw new Error("useResponding needs a RespondingProvider");
  return value;
}

/** The server refused an answer for good (as opposed to not answering at all): keep it, marked, and stop. */
function refusedForGood(error: unknown): error is { status: number; message: string } {
  return (
    isApiError(error) && error.status >= 400 && error.status < 500 && ![401, 408, 429].includes(error.status)
  );
}

/** A count update from the live channel, or null when the payload is not one. */
function readCounts(payload: unknown) {
  if (typeof payload !== "object" || payload === null) return null;
  const { job_alert_id, responding, not_available } = payload as Record<string, unknown>;
  const isCount = (value: unknown): value is number =>
    typeof value === "number" && Number.isSafeInteger(value);
  if (!isCount(job_alert_id) || !isCount(responding) || !isCount(not_available)) return null;
  return { job_alert_id, responding, not_available };
}

function createFlush(pending: PendingAnswers, queryClient: QueryClient): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = async () => {
    for (const answer of pending.list()) {
      if (answer.refused) continue;
      if (!navigator.onLine) return;
      const job = refOf(answer);
      try {
        const result = await respondingApi.answer(answer.alert_id, {
          status: answer.status,
          eta_minutes: answer.eta_minutes,
          answered_at: answer.answered_at,
        });
        pending.remove(job, answer.answered_at);
        applyJobResponses(queryClient, answer.alert_id, result);
      } catch (error) {
        if (!refusedForGood(error)) return;
        pending.refuse(job, answer.answered_at, error.message);
        if (error.status === 409) markClosed(queryClient, answer.alert_id, answer.job_alert_id);
      }
    }
  };
  return () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
}

/**
 * "Who is responding" for the signed-in member: the answers waiting for the network (sent when it
 * returns, with the time each was given) and the live count updates (`alert:responses`), which every
 * card and popup of the job shows at once; a popup also asks again for the names.
 */
export function RespondingProvider({ userId, children }: { userId: number | string; children: ReactNode }) {
  const queryClient = useQueryClient();
  const online = useOnlineStatus();
  const value = useMemo(() => {
    const pending = new PendingAnswers(userId);
    return { pending, flush: createFlush(pending, queryClient) };
  }, [userId, queryClient]);
  const waiting = useSyncExternalStore(value.pending.subscribe, () =>
    value.pending.list().some((answer) => !answer.refused),
  );

  useEffect(
    () =>
      subscribeLiveEvents(["alert:responses", "rooms-joined"], (event, payload) => {
        // Count updates sent before the page was in its rooms (while it opened, or while the channel
        // was down) are lost: what is on screen asks again once it is.
        if (event === "rooms-joined") {
          void queryClient.invalidateQueries({ queryKey: respondingKeys.all });
          return;
        }
        const counts = readCounts(payload);
        if (!counts) return;
        applyCounts(queryClient, counts);
        invalidatePeople(queryClient, counts.job_alert_id);
      }),
    [queryClient],
  );

  // Back online: counts may have moved meanwhile (events are not replayed), and kept answers go out.
  useEffect(() => {
    if (!online) return;
    void queryClient.invalidateQueries({ queryKey: respondingKeys.all });
  }, [online, queryClient]);

  useEffect(() => {
    if (!online || !waiting) return;
    void value.flush();
    const timer = window.setInterval(() => void value.flush(), PENDING_RETRY_MS);
    return () => window.clearInterval(timer);
  }, [online, waiting, value]);

  return <RespondingContext.Provider value={value}>{children}</RespondingContext.Provider>;
}
