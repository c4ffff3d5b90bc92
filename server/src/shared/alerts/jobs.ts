import { type Answerability, jobAnswerability } from "@turnout/domain";
import { asc, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { alerts } from "../../db/schema.js";

/** A job as answers see it: its first alert, when it was first paged, and every agency it reached. */
export type Job = {
  /** The alert the request named. */
  alertId: number;
  jobAlertId: number;
  startedAt: Date;
  agencyIds: number[];
  /** Whether the job takes answers (domain jobAnswerability), and why not. */
  answerability: Answerability;
};

/**
 * The jobs of these alerts. A grouped alert's job is its group (every page of one job number within
 * the grouping window), which takes answers when any page does (domain jobAnswerability); answers attach to the
 * group's first alert. A single alert is its own job.
 */
export async function jobsOf(db: Database, alertIds: readonly number[]): Promise<Map<number, Job>> {
  const jobs = new Map<number, Job>();
  if (alertIds.length === 0) return jobs;
  const columns = {
    id: alerts.id,
    groupId: alerts.groupId,
    type: alerts.type,
    jobNumber: alerts.jobNumber,
    sentAt: alerts.sentAt,
    agencyIds: alerts.agencyIds,
  };
  const asked = await db
    .select(columns)
    .from(alerts)
    .where(inArray(alerts.id, [...new Set(alertIds)]));
  const groupIds = [...new Set(asked.flatMap((a) => (a.groupId === null ? [] : [a.groupId])))];
  // A job's pages are few (one job number within the grouping window): read them and fold here.
  const pages =
    groupIds.length === 0
      ? []
      : await db
          .select(columns)
          .from(alerts)
          .where(inArray(alerts.groupId, groupIds))
          .orderBy(asc(alerts.id));
  const byGroup = new Map<number, typeof pages>();
  for (const page of pages) byGroup.set(page.groupId!, [...(byGroup.get(page.groupId!) ?? []), page]);
  for (const alert of asked) {
    const job = (alert.groupId !== null && byGroup.get(alert.groupId)) || [alert];
    jobs.set(alert.id, {
      alertId: alert.id,
      jobAlertId: job[0]!.id,
      startedAt: new Date(Math.min(...job.map((p) => p.sentAt.getTime()))),
      agencyIds: [...new Set(job.flatMap((p) => p.agencyIds))].sort((a, b) => a - b),
      answerability: jobAnswerability(job.map((p) => ({ type: p.type, job_number: p.jobNumber }))),
    });
  }
  return jobs;
}
