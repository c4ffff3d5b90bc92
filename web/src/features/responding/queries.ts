import { type QueryClient, queryOptions } from "@tanstack/react-query";
import DataLoader from "dataloader";
import { firstContentShown } from "../../ui/first-content";
import {
  type AdminJobResponses,
  type JobResponses,
  MAX_SUMMARY_IDS,
  type ResponseSummary,
  respondingApi,
} from "./responding-api";

export const respondingKeys = {
  all: ["responding"] as const,
  summaries: () => [...respondingKeys.all, "summary"] as const,
  summary: (alertId: number) => [...respondingKeys.summaries(), alertId] as const,
  jobs: () => [...respondingKeys.all, "job"] as const,
  job: (alertId: number) => [...respondingKeys.jobs(), alertId] as const,
  adminJobs: () => [...respondingKeys.all, "admin-job"] as const,
  adminJob: (alertId: number) => [...respondingKeys.adminJobs(), alertId] as const,
};

/**
 * Cards that mount within this many milliseconds of each other (a screenful rendering, a scroll that
 * brings several into view) share one request.
 */
export const SUMMARY_BATCH_WINDOW_MS = 20;

/** Counts stay fresh through the live channel; a card scrolled back into view does not ask again for this long. */
const SUMMARY_STALE_MS = 60_000;

/**
 * The counts of the visible cards, one GET /alerts/responses per screenful: each card asks for its
 * own alert and the loader gathers the asks of the same moment (at most 100 per request). An alert
 * the server leaves out (not an emergency job) answers null. The query cache keeps the results, so
 * the loader keeps none.
 */
const summaryLoader = new DataLoader<number, ResponseSummary | null>(
  async (alertIds) => {
    const items = await respondingApi.listSummaries(alertIds);
    const byAlert = new Map(items.map((item) => [item.alert_id, item]));
    return alertIds.map((alertId) => byAlert.get(alertId) ?? null);
  },
  {
    cache: false,
    maxBatchSize: MAX_SUMMARY_IDS,
    // The first screenful's counts are asked for once its cards are on screen (issue 31).
    batchScheduleFn: (send) =>
      void firstContentShown.then(() => window.setTimeout(send, SUMMARY_BATCH_WINDOW_MS)),
  },
);

/** A card's counts and the member's own answer; null for an alert that takes no answers. */
export function summaryQueryOptions(alertId: number) {
  return queryOptions({
    queryKey: respondingKeys.summary(alertId),
    queryFn: () => summaryLoader.load(alertId),
    staleTime: SUMMARY_STALE_MS,
  });
}

/** The popup's view of a job: counts, own answer and the names the caller may see. */
export function jobResponsesQueryOptions(alertId: number) {
  return queryOptions({
    queryKey: respondingKeys.job(alertId),
    queryFn: ({ signal }) => respondingApi.getJob(alertId, signal),
    retry: false,
  });
}

/** The admin's view of a job: everyone's answers. */
export function adminJobResponsesQueryOptions(alertId: number) {
  return queryOptions({
    queryKey: respondingKeys.adminJob(alertId),
    queryFn: ({ signal }) => respondingApi.getAdminJob(alertId, signal),
    retry: false,
  });
}

type Counts = Pick<ResponseSummary, "job_alert_id" | "responding" | "not_available">;
type JobView = { job_alert_id: number; alert_id?: number };

/** An updater of cached views that changes those `test` picks (a job may be cached under several alerts). */
function patchWhere<T extends JobView>(test: (data: T) => boolean, patch: (data: T) => T) {
  return <D extends T | null | undefined>(data: D): D => (data && test(data) ? (patch(data) as D) : data);
}

/** Cached summaries and job views of one job. */
function ofJob(jobAlertId: number | null) {
  return (data: JobView | null | undefined) =>
    data !== null && data !== undefined && data.job_alert_id === jobAlertId;
}

/** New counts from the live channel: every cached view of the job shows them at once. */
export function applyCounts(queryClient: QueryClient, counts: Counts): void {
  const update = patchWhere<Counts & JobView>(ofJob(counts.job_alert_id), (data) => ({
    ...data,
    responding: counts.responding,
    not_available: counts.not_available,
  }));
  queryClient.setQueriesData<ResponseSummary | null>({ queryKey: respondingKeys.summaries() }, update);
  queryClient.setQueriesData<JobResponses>({ queryKey: respondingKeys.jobs() }, update);
  queryClient.setQueriesData<AdminJobResponses>({ queryKey: respondingKeys.adminJobs() }, update);
}

/**
 * The names behind the counts changed: open popups (their queries are active) ask again, the rest
 * when they next open.
 */
export function invalidatePeople(queryClient: QueryClient, jobAlertId: number): void {
  for (const key of [respondingKeys.jobs(), respondingKeys.adminJobs()]) {
    void queryClient.invalidateQueries({
      queryKey: key,
      predicate: (query) => ofJob(jobAlertId)(query.state.data as JobView | undefined),
    });
  }
}

/** The server's answer to the member's own answer: every cached view of the job takes it. */
export function applyJobResponses(queryClient: QueryClient, alertId: number, job: JobResponses): void {
  const sameJob = ofJob(job.job_alert_id);
  queryClient.setQueriesData<ResponseSummary | null>(
    { queryKey: respondingKeys.summaries() },
    patchWhere<ResponseSummary>(sameJob, (data) => ({
      ...data,
      responding: job.responding,
      not_available: job.not_available,
      mine: job.mine,
      open: job.open,
      closes_at: job.closes_at,
    })),
  );
  queryClient.setQueriesData<JobResponses>(
    { queryKey: respondingKeys.jobs() },
    patchWhere<JobResponses>(sameJob, (data) => ({ ...job, alert_id: data.alert_id })),
  );
  queryClient.setQueryData(respondingKeys.job(alertId), job);
  // The card answered on may have no counts yet (the app opened offline): it takes the job's now.
  const { people: _people, ...summaryOfJob } = job;
  const cardSummary: ResponseSummary = { ...summaryOfJob, alert_id: alertId };
  queryClient.setQueryData<ResponseSummary | null>(respondingKeys.summary(alertId), () => cardSummary);
}

/** The server says the job has closed: every cached view of it stops offering the buttons. */
export function markClosed(queryClient: QueryClient, alertId: number, jobAlertId: number | null): void {
  const closed = <T extends JobView & { open: boolean }>(data: T) =>
    data.alert_id === alertId || ofJob(jobAlertId)(data);
  queryClient.setQueriesData<ResponseSummary | null>(
    { queryKey: respondingKeys.summaries() },
    patchWhere<ResponseSummary>(closed, (data) => ({ ...data, open: false })),
  );
  queryClient.setQueriesData<JobResponses>(
    { queryKey: respondingKeys.jobs() },
    patchWhere<JobResponses>(closed, (data) => ({ ...data, open: false })),
  );
}
