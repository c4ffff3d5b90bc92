import type { Answer, JobDetail, JobSummary, Person } from "./service.js";

/** The caller's own answer. */
function presentAnswer(answer: Answer) {
  return {
    status: answer.status,
    eta_minutes: answer.etaMinutes,
    answered_at: answer.answeredAt.toISOString(),
  };
}

function presentPerson(person: Person) {
  return {
    user_id: person.userId,
    first_name: person.firstName,
    last_name: person.lastName,
    ...presentAnswer(person),
  };
}

/** A job's counts as a card shows them (one item of GET /alerts/responses). */
export function presentSummary(s: JobSummary) {
  return {
    alert_id: s.job.alertId,
    job_alert_id: s.job.jobAlertId,
    responding: s.counts.responding,
    not_available: s.counts.not_available,
    mine: s.mine && presentAnswer(s.mine),
    open: s.open,
    closes_at: s.closesAt.toISOString(),
  };
}

/** A job as the popup shows it: the counts, the caller's answer and the names they may see. */
export function presentDetail(d: JobDetail) {
  return { ...presentSummary(d), people: d.people.map(presentPerson) };
}

/** Everyone's answers to a job, for the admin console. */
export function presentAdminDetail(d: JobSummary & { people: (Person & { agencyNames: string[] })[] }) {
  const { mine: _mine, alert_id: _alertId, ...counts } = presentSummary(d);
  return {
    ...counts,
    people: d.people.map((p) => ({ ...presentPerson(p), agency_names: p.agencyNames })),
  };
}
