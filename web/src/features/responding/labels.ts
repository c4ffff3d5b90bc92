import { etaLabel, formatClockTime, type ResponseEta, type ResponseStatus } from "@turnout/domain";

/** The time of day an answer was given, e.g. "2:05 pm" ("" when unreadable). */
export const answerTimeLabel = (answeredAt: string): string => formatClockTime(answeredAt);

export const STATUS_LABELS: Record<ResponseStatus, string> = {
  responding: "Responding",
  not_available: "Not available",
};

/** "Responding · 5 min · 2:05 pm": an answer with its ETA when there is one and its time. */
export function describeAnswer(answer: {
  status: ResponseStatus;
  eta_minutes: ResponseEta | null;
  answered_at: string;
}): string {
  return [
    STATUS_LABELS[answer.status],
    answer.eta_minutes !== null ? etaLabel(answer.eta_minutes) : null,
    answerTimeLabel(answer.answered_at),
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The text shown while the member's answer waits for the network. */
export const PENDING_TEXT = "Pending — will send when online";
/** Shown in place of the buttons once a job takes no more answers. */
export const CLOSED_TEXT = "Closed for responses";
/** On a card whose counts could not load for want of a network. */
export const OFFLINE_COUNTS_TEXT = "Counts show when back online";
