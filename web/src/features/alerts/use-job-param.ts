import { useCallback } from "react";
import { useLocation, useSearchParams } from "wouter";
import { useHistoryState } from "wouter/use-browser-location";

/** What opening a job from the feed leaves in its history entry. */
type JobEntryState = { fromFeed?: boolean } | null;

/**
 * The job popup's address, `?job={id}`: the job open now, opening one from the feed (a history entry,
 * so Back closes it) and closing it (back to the feed, or dropping the parameter on a page opened with it).
 */
export function useJobParam() {
  const [, navigate] = useLocation();
  const entry = useHistoryState<JobEntryState>();
  const [params, setParams] = useSearchParams();
  const jobId = params.get("job") || null;
  const openJob = useCallback(
    (alertId: number) => navigate(`/?job=${alertId}`, { state: { fromFeed: true } }),
    [navigate],
  );
  const closeJob = useCallback(() => {
    if (entry?.fromFeed) {
      window.history.back();
      return;
    }
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete("job");
        return next;
      },
      { replace: true },
    );
  }, [entry, setParams]);
  return { jobId, openJob, closeJob };
}
