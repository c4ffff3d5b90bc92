import { useQueryClient } from "@tanstack/react-query";
import type { ResponseEta, ResponseStatus } from "@turnout/domain";
import { useCallback, useState, useSyncExternalStore } from "react";
import { isApiError } from "../../api/errors";
import type { JobRef, PendingAnswer } from "./pending-answers";
import { applyJobResponses, markClosed } from "./queries";
import type { MyResponse } from "./responding-api";
import { respondingApi } from "./responding-api";
import { useResponding } from "./responding-provider";

export interface AnswerState {
  /** The answer to show as the member's: a kept one waiting for the network, else the server's. */
  mine: MyResponse | null;
  /** True when `mine` has not reached the server yet. */
  pending: boolean;
  /** Why a kept answer was refused when it was finally sent (e.g. the job had closed). */
  refused: PendingAnswer | null;
  /** The last answer given here failed: the reason, to show beside the buttons. */
  error: string | null;
  busy: boolean;
  answer: (status: ResponseStatus, eta: ResponseEta | null) => Promise<void>;
}

/**
 * The member's answer to one job: online it goes straight to the server; without a network (or when
 * the request gets no answer) it is kept with its time and sent when the network returns. A newer
 * answer replaces a kept older one.
 */
export function useAnswer(job: JobRef, serverMine: MyResponse | null): AnswerState {
  const queryClient = useQueryClient();
  const { pending } = useResponding();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kept = useSyncExternalStore(pending.subscribe, () => pending.find(job));
  const { alertId, jobAlertId } = job;

  const answer = useCallback(
    async (status: ResponseStatus, eta: ResponseEta | null) => {
      const given: PendingAnswer = {
        alert_id: alertId,
        job_alert_id: jobAlertId,
        status,
        eta_minutes: status === "responding" ? eta : null,
        answered_at: new Date().toISOString(),
        refused: null,
      };
      setError(null);
      if (!navigator.onLine) {
        pending.put(given);
        return;
      }
      setBusy(true);
      try {
        const result = await respondingApi.answer(alertId, { status, eta_minutes: given.eta_minutes });
        pending.remove({ alertId, jobAlertId: result.job_alert_id });
        applyJobResponses(queryClient, alertId, result);
      } catch (failure) {
        if (isApiError(failure) && failure.status === 0) {
          pending.put(given);
        } else {
          if (isApiError(failure) && failure.status === 409) markClosed(queryClient, alertId, jobAlertId);
          setError(failure instanceof Error ? failure.message : "Your answer could not be sent.");
        }
      } finally {
        setBusy(false);
      }
    },
    [alertId, jobAlertId, pending, queryClient],
  );

  const waiting = kept && !kept.refused ? kept : null;
  return {
    mine: waiting ?? serverMine,
    pending: waiting !== null,
    refused: kept?.refused ? kept : null,
    error,
    busy,
    answer,
  };
}
