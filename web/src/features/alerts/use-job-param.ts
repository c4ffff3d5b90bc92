import { useCallback } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";

/**
 * The job popup's address, `?job={id}`: the job open now, opening one from the feed (a history entry,
 * so Back closes it) and closing it (back to the feed, or dropping the parameter on a page opened with it).
 */
export function useJobParam() {
  const navigate = useNavigate();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const jobId = params.get("job") || null;
  const openJob = useCallback(
    (alertId: number) =>
      navigate({ pathname: "/", search: `?job=${alertId}` }, { state: { fromFeed: true } }),
    [navigate],
  );
  const closeJob = useCallback(() => {
    if ((location.state as { fromFeed?: boolean } | null)?.fromFeed) {
      navigate(-1);
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
  }, [location.state, navigate, setParams]);
  return { jobId, openJob, closeJob };
}
