import { z } from "zod/mini";
import { storage } from "../../api/storage";
import { myResponseSchema } from "./responding-api";

/** An answer kept for later: given without a network, or refused when it was finally sent. */
export const pendingAnswerSchema = z.extend(myResponseSchema, {
  /** The alert the member answered on (the card's or the popup's). */
  alert_id: z.number(),
  /** The job's first alert when it was known then: answers to the same job replace each other. */
  job_alert_id: z.nullable(z.number()),
  /** Set when the server refused it (e.g. the job closed meanwhile): shown, never sent again. */
  refused: z.nullish(z.string()),
});
export type PendingAnswer = z.infer<typeof pendingAnswerSchema>;

const pendingListSchema = z.array(pendingAnswerSchema);

/** Answers windows close at most 72 hours after a page; anything older than that is of no use. */
const MAX_AGE_MS = 72 * 3_600_000;

/** The ids that name one job: the alert answered on and, when known, the job's first alert. */
export interface JobRef {
  alertId: number;
  jobAlertId: number | null;
}

function sameJob(answer: PendingAnswer, job: JobRef): boolean {
  const ids = [job.alertId, job.jobAlertId];
  return ids.includes(answer.alert_id) || (answer.job_alert_id !== null && ids.includes(answer.job_alert_id));
}

/**
 * One member's unsent answers, kept in localStorage so a reload or a closed app keeps them. One answer
 * per job: a newer one replaces the older. Components read it through `useSyncExternalStore`.
 */
export class PendingAnswers {
  private answers: PendingAnswer[];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly userId: number | string) {
    const stored = storage.getPendingResponses(userId, pendingListSchema) ?? [];
    const oldest = Date.now() - MAX_AGE_MS;
    this.answers = stored.filter((answer) => Date.parse(answer.answered_at) > oldest);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Every kept answer, oldest first (a new array after each change, the same one otherwise). */
  list = (): readonly PendingAnswer[] => this.answers;

  /** The kept answer of a job, if any. */
  find(job: JobRef): PendingAnswer | undefined {
    return this.answers.find((answer) => sameJob(answer, job));
  }

  /** Keep an answer, replacing any older one of the same job. */
  put(answer: PendingAnswer): void {
    const rest = this.answers.filter((kept) => !sameJob(kept, refOf(answer)));
    this.write([...rest, answer].sort((a, b) => a.answered_at.localeCompare(b.answered_at)));
  }

  /** Forget a job's answer; with `onlyAt`, only if it is still the answer given at that time. */
  remove(job: JobRef, onlyAt?: string): void {
    const next = this.answers.filter(
      (kept) => !(sameJob(kept, job) && (onlyAt === undefined || kept.answered_at === onlyAt)),
    );
    if (next.length !== this.answers.length) this.write(next);
  }

  /** Mark the answer given at `answeredAt` as refused with the server's reason. */
  refuse(job: JobRef, answeredAt: string, reason: string): void {
    this.write(
      this.answers.map((kept) =>
        sameJob(kept, job) && kept.answered_at === answeredAt ? { ...kept, refused: reason } : kept,
      ),
    );
  }

  private write(next: PendingAnswer[]): void {
    this.answers = next;
    storage.setPendingResponses(this.userId, next);
    for (const listener of this.listeners) listener();
  }
}

/** The job a kept answer belongs to. */
export function refOf(answer: PendingAnswer): JobRef {
  return { alertId: answer.alert_id, jobAlertId: answer.job_alert_id };
}
