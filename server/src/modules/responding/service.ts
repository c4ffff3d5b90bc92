import {
  answerTime,
  isResponseOpen,
  type ResponseEta,
  type ResponseStatus,
  responseClosesAt,
} from "@turnout/domain";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, jobResponses, userAgencies, users } from "../../db/schema.js";
import { badRequest, conflict, notFound } from "../../errors.js";
import { type Job, jobsOf } from "../../shared/alerts/jobs.js";
import { assignedAgencyIds } from "../../shared/alerts/scope.js";
import type { Actor } from "../../shared/guard.js";

export const JOB_CLOSED = "This job has closed for responses.";
const NOT_FOUND = "Message not found.";

export type Counts = { responding: number; not_available: number };
export type Answer = { status: ResponseStatus; etaMinutes: ResponseEta | null; answeredAt: Date };
export type Person = Answer & {
  userId: number;
  firstName: string;
  lastName: string;
  agencyIds: number[];
};

/** The job of one alert the viewer may read (404 otherwise, as for an alert that does not exist). */
async function readableJob(db: Database, actor: Actor, alertId: number, mine: number[]): Promise<Job> {
  const job = (await jobsOf(db, [alertId])).get(alertId);
  if (!job || (!actor.isAdmin && !job.agencyIds.some((id) => mine.includes(id)))) throw notFound(NOT_FOUND);
  return job;
}

/** Counts of answers per job. */
export async function countsOf(db: Database, jobAlertIds: readonly number[]): Promise<Map<number, Counts>> {
  const counts = new Map<number, Counts>();
  if (jobAlertIds.length === 0) return counts;
  const rows = await db
    .select({
      jobAlertId: jobResponses.jobAlertId,
      responding: sql<number>`count(*) filter (where ${jobResponses.status} = 'responding')::int`,
      notAvailable: sql<number>`count(*) filter (where ${jobResponses.status} = 'not_available')::int`,
    })
    .from(jobResponses)
    .where(inArray(jobResponses.jobAlertId, [...new Set(jobAlertIds)]))
    .groupBy(jobResponses.jobAlertId);
  for (const r of rows)
    counts.set(Number(r.jobAlertId), {
      responding: Number(r.responding),
      not_available: Number(r.notAvailable),
    });
  return counts;
}

async function answersOf(db: Database, userId: number, jobAlertIds: readonly number[]) {
  const mine = new Map<number, Answer>();
  if (jobAlertIds.length === 0) return mine;
  const rows = await db
    .select()
    .from(jobResponses)
    .where(and(eq(jobResponses.userId, userId), inArray(jobResponses.jobAlertId, [...new Set(jobAlertIds)])));
  for (const r of rows) mine.set(Number(r.jobAlertId), toAnswer(r));
  return mine;
}

/** Everyone who answered a job, with the agencies each belongs to; responding first, then by time. */
async function peopleOf(db: Database, jobAlertId: number): Promise<Person[]> {
  const rows = await db
    .select({
      userId: jobResponses.userId,
      status: jobResponses.status,
      etaMinutes: jobResponses.etaMinutes,
      answeredAt: jobResponses.answeredAt,
      firstName: users.firstName,
      lastName: users.lastName,
    })
    .from(jobResponses)
    .innerJoin(users, eq(users.id, jobResponses.userId))
    .where(eq(jobResponses.jobAlertId, jobAlertId))
    .orderBy(
      sql`case when ${jobResponses.status} = 'responding' then 0 else 1 end`,
      asc(jobResponses.answeredAt),
      asc(jobResponses.userId),
    );
  const memberships =
    rows.length === 0
      ? []
      : await db
          .select({ userId: userAgencies.userId, agencyId: userAgencies.agencyId })
          .from(userAgencies)
          .where(
            inArray(
              userAgencies.userId,
              rows.map((r) => r.userId),
            ),
          );
  return rows.map((r) => ({
    ...toAnswer(r),
    userId: r.userId,
    firstName: r.firstName,
    lastName: r.lastName,
    agencyIds: memberships.filter((m) => m.userId === r.userId).map((m) => m.agencyId),
  }));
}

export type JobSummary = {
  job: Job;
  counts: Counts;
  mine: Answer | null;
  open: boolean;
  closesAt: Date;
};

/** The counts of up to 100 jobs a card list shows: alerts the viewer cannot read, or jobs that take no answers, are left out. */
export async function listSummaries(
  db: Database,
  actor: Actor,
  alertIds: readonly number[],
  windowHours: number,
): Promise<JobSummary[]> {
  const mine = actor.isAdmin ? [] : await assignedAgencyIds(db, actor.userId);
  const jobs = [...(await jobsOf(db, alertIds)).values()].filter(
    (job) => job.answerability.answerable && (actor.isAdmin || job.agencyIds.some((id) => mine.includes(id))),
  );
  const jobIds = jobs.map((j) => j.jobAlertId);
  const [counts, answers] = await Promise.all([countsOf(db, jobIds), answersOf(db, actor.userId, jobIds)]);
  const now = Date.now();
  return jobs.map((job) => summary(job, counts, answers, now, windowHours));
}

export type JobDetail = JobSummary & { people: Person[] };

/**
 * One job's answers for a member: the counts, their own answer, and the names of those who share with
 * them an agency the job was paged to (a member of another agency of the same job sees only counts).
 */
export async function jobDetail(db: Database, actor: Actor, alertId: number, windowHours: number) {
  const mine = await assignedAgencyIds(db, actor.userId);
  const job = await readableJob(db, actor, alertId, mine);
  if (!job.answerability.answerable) throw badRequest(job.answerability.reason);
  return detail(db, actor, job, mine, windowHours);
}

async function detail(
  db: Database,
  actor: Actor,
  job: Job,
  mine: number[],
  windowHours: number,
): Promise<JobDetail> {
  const [counts, answers, everyone] = await Promise.all([
    countsOf(db, [job.jobAlertId]),
    answersOf(db, actor.userId, [job.jobAlertId]),
    peopleOf(db, job.jobAlertId),
  ]);
  const shared = job.agencyIds.filter((id) => mine.includes(id));
  const people = everyone.filter((p) => p.agencyIds.some((id) => shared.includes(id)));
  return { ...summary(job, counts, answers, Date.now(), windowHours), people };
}

/** Everyone's answers to a job, for the admin console (admins only; the route says so). */
export async function adminJobDetail(db: Database, alertId: number, windowHours: number) {
  const job = (await jobsOf(db, [alertId])).get(alertId);
  if (!job) throw notFound(NOT_FOUND);
  if (!job.answerability.answerable) throw badRequest(job.answerability.reason);
  const [counts, people] = await Promise.all([countsOf(db, [job.jobAlertId]), peopleOf(db, job.jobAlertId)]);
  const agencyIds = [...new Set(people.flatMap((p) => p.agencyIds))];
  const names = new Map(
    agencyIds.length === 0
      ? []
      : (
          await db
            .select({ id: agencies.id, name: agencies.name })
            .from(agencies)
            .where(inArray(agencies.id, agencyIds))
        ).map((a) => [a.id, a.name]),
  );
  return {
    ...summary(job, counts, new Map(), Date.now(), windowHours),
    people: people.map((p) => ({
      ...p,
      agencyNames: p.agencyIds
        .map((id) => names.get(id))
        .filter((n): n is string => n !== undefined)
        .sort(),
    })),
  };
}

/**
 * A member's answer to the job of `alertId`, replacing any earlier one. Refused for jobs that are not
 * emergencies, jobs that have closed, and members of none of the job's agencies (as 'not found': the
 * job is not theirs to see). Resolves to the job as the member now sees it.
 */
export async function answerJob(
  ctx: ServiceContext,
  actor: Actor,
  alertId: number,
  input: { status: ResponseStatus; etaMinutes: ResponseEta | null; answeredAt: Date | null },
): Promise<JobDetail> {
  const { db } = ctx;
  const windowHours = ctx.config.responseWindowHours;
  const { job, mine } = await answerableJob(db, actor, alertId, windowHours);
  const answeredAt = answerTime(input.answeredAt, job.startedAt, new Date());
  const values = {
    status: input.status,
    etaMinutes: input.status === "responding" ? input.etaMinutes : null,
    answeredAt,
    updatedAt: new Date(),
  };
  await db
    .insert(jobResponses)
    .values({ jobAlertId: job.jobAlertId, userId: actor.userId, ...values })
    .onConflictDoUpdate({
      target: [jobResponses.jobAlertId, jobResponses.userId],
      set: values,
      // An answer given offline earlier than the one already kept does not overwrite the newer one.
      setWhere: sql`${jobResponses.answeredAt} <= excluded.answered_at`,
    });
  return announced(ctx, await detail(db, actor, job, mine, windowHours));
}

/** Withdraws a member's answer (same refusals as answering). */
export async function withdrawAnswer(ctx: ServiceContext, actor: Actor, alertId: number): Promise<JobDetail> {
  const { db } = ctx;
  const windowHours = ctx.config.responseWindowHours;
  const { job, mine } = await answerableJob(db, actor, alertId, windowHours);
  await db
    .delete(jobResponses)
    .where(and(eq(jobResponses.jobAlertId, job.jobAlertId), eq(jobResponses.userId, actor.userId)));
  return announced(ctx, await detail(db, actor, job, mine, windowHours));
}

/** Tells the job's agencies (and the admins) the new counts; the answer is committed by now. */
function announced(ctx: ServiceContext, d: JobDetail): JobDetail {
  ctx.live.responsesChanged({ jobAlertId: d.job.jobAlertId, agencyIds: d.job.agencyIds, ...d.counts });
  return d;
}

async function answerableJob(db: Database, actor: Actor, alertId: number, windowHours: number) {
  const mine = await assignedAgencyIds(db, actor.userId);
  const job = (await jobsOf(db, [alertId])).get(alertId);
  // Admins read every alert but answer only for agencies they belong to, like any member.
  if (!job?.agencyIds.some((id) => mine.includes(id))) throw notFound(NOT_FOUND);
  if (!job.answerability.answerable) throw badRequest(job.answerability.reason);
  if (!isResponseOpen(job.startedAt, Date.now(), windowHours)) throw conflict(JOB_CLOSED);
  return { job, mine };
}

function summary(
  job: Job,
  counts: Map<number, Counts>,
  answers: Map<number, Answer>,
  now: number,
  windowHours: number,
): JobSummary {
  return {
    job,
    counts: counts.get(job.jobAlertId) ?? { responding: 0, not_available: 0 },
    mine: answers.get(job.jobAlertId) ?? null,
    open: isResponseOpen(job.startedAt, now, windowHours),
    closesAt: responseClosesAt(job.startedAt, windowHours),
  };
}

function toAnswer(r: { status: string; etaMinutes: number | null; answeredAt: Date }): Answer {
  return {
    status: r.status as ResponseStatus,
    etaMinutes: (r.etaMinutes ?? null) as ResponseEta | null,
    answeredAt: r.answeredAt,
  };
}
