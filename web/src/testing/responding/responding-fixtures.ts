import type {
  AdminJobResponses,
  JobResponses,
  ResponseSummary,
} from "../../features/responding/responding-api";

const HOUR_MS = 3_600_000;

/** One item of GET /alerts/responses: an open job with no answers unless told otherwise. */
export function makeSummary(alertId: number, overrides: Partial<ResponseSummary> = {}): ResponseSummary {
  return {
    alert_id: alertId,
    job_alert_id: alertId,
    responding: 0,
    not_available: 0,
    mine: null,
    open: true,
    closes_at: new Date(Date.now() + 11 * HOUR_MS).toISOString(),
    ...overrides,
  };
}

/** GET /alerts/:id/responses (and the answer to PUT): a summary with the names the caller may see. */
export function makeJobResponses(alertId: number, overrides: Partial<JobResponses> = {}): JobResponses {
  return { ...makeSummary(alertId), people: [], ...overrides };
}

/** GET /admin/alerts/:id/responses. */
export function makeAdminJobResponses(
  jobAlertId: number,
  overrides: Partial<AdminJobResponses> = {},
): AdminJobResponses {
  const { alert_id: _alertId, mine: _mine, ...summary } = makeSummary(jobAlertId);
  return { ...summary, people: [], ...overrides };
}

/** The batch route's reply. */
export function summariesReply(items: ResponseSummary[]) {
  return { body: { items } };
}
