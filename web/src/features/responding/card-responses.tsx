import { useQuery } from "@tanstack/react-query";
import { type AnswerablePage, describeResponseCounts, jobAnswerability } from "@turnout/domain";
import {
  checkCirclePath,
  cloudOffPath,
  doNotDisturbOnPath,
  errorPath,
  groupsPath,
  Icon,
} from "../../ui/kit/icons";
import { useOnlineStatus } from "../../ui/use-online-status";
import { AnswerButtons, AnswerNote } from "./answer-controls";
import { CLOSED_TEXT, OFFLINE_COUNTS_TEXT, PENDING_TEXT, STATUS_LABELS } from "./labels";
import { summaryQueryOptions } from "./queries";
import type { ResponseSummary } from "./responding-api";
import { type AnswerState, useAnswer } from "./use-answer";
import "./answers.css";
import "./answers-toggle.css";

/** "4 responding, 1 not available" with an icon; the card's and the popup's count line. */
export function ResponseCounts({
  counts,
}: {
  counts: Pick<ResponseSummary, "responding" | "not_available">;
}) {
  return (
    <p className="kit-text-body1 response-counts">
      <Icon path={groupsPath} fontSize="small" />
      {describeResponseCounts(counts)}
    </p>
  );
}

/** The card's answer panel, owned by the card: whether it is open, its element id, and the toggle. */
export interface CardPanel {
  open: boolean;
  id: string;
  onToggle: () => void;
}

/** What the card's answers need: the alert it shows and every page of its job. */
interface CardJob {
  alertId: number;
  /** The job's pages: answers are taken when any of them takes them (domain jobAnswerability). */
  pages: readonly AnswerablePage[];
  readOnly?: boolean;
}

/** A card's counts, asked for only when its job takes answers (never a request bound to fail). */
function useCardSummary(alertId: number, pages: readonly AnswerablePage[]) {
  const answerable = jobAnswerability(pages).answerable;
  const summary = useQuery({ ...summaryQueryOptions(alertId), enabled: answerable });
  return { answerable, summary };
}

/** A job without counts, as the member may still answer it offline (the server decides later). */
function offlineSummary(alertId: number) {
  return { alert_id: alertId, job_alert_id: null, open: true, mine: null } as const;
}

function CardAnswer({
  summary,
}: {
  summary: Pick<ResponseSummary, "alert_id" | "open" | "mine"> & { job_alert_id: number | null };
}) {
  const state = useAnswer({ alertId: summary.alert_id, jobAlertId: summary.job_alert_id }, summary.mine);
  return (
    <>
      <div className="card-answer">
        <AnswerButtons state={state} open={summary.open} eta={null} jobLabel={`job ${summary.alert_id}`} />
      </div>
      <AnswerNote state={state} />
    </>
  );
}

/** The toggle's place while the counts load: as wide as a loaded one, so nothing moves. */
function LoadingToggle() {
  return <span className="answers-toggle-placeholder" aria-hidden="true" />;
}

/** What the toggle says of the member's answer, in an icon (the accessible name says it in words). */
function mineIcon(state: AnswerState) {
  if (state.refused || state.error) return <Icon path={errorPath} fontSize="small" />;
  if (state.pending) return <Icon path={cloudOffPath} fontSize="small" />;
  if (state.mine?.status === "responding") return <Icon path={checkCirclePath} fontSize="small" />;
  if (state.mine?.status === "not_available") return <Icon path={doNotDisturbOnPath} fontSize="small" />;
  return null;
}

function AnswersToggleButton({
  summary,
  counts,
  panel,
}: {
  summary: Pick<ResponseSummary, "alert_id" | "open" | "mine"> & { job_alert_id: number | null };
  counts: Pick<ResponseSummary, "responding" | "not_available"> | null;
  panel: CardPanel;
}) {
  const state = useAnswer({ alertId: summary.alert_id, jobAlertId: summary.job_alert_id }, summary.mine);
  const parts = [counts ? describeResponseCounts(counts) : OFFLINE_COUNTS_TEXT];
  if (state.mine)
    parts.push(`You: ${STATUS_LABELS[state.mine.status]}${state.pending ? ` (${PENDING_TEXT})` : ""}`);
  if (state.refused) parts.push("Your answer was not sent");
  if (!summary.open) parts.push(CLOSED_TEXT);
  // A plain button styled by answers-toggle.css: there is one on every card of the first screen.
  const className = !state.mine
    ? "answers-toggle"
    : state.mine.status === "responding"
      ? "answers-toggle answers-toggle--answered answers-toggle--responding"
      : "answers-toggle answers-toggle--answered";
  return (
    <button
      type="button"
      className={className}
      aria-label={`Who is responding: ${parts.join(". ")}`}
      aria-expanded={panel.open}
      aria-controls={panel.id}
      onClick={panel.onToggle}
    >
      <Icon path={groupsPath} fontSize="small" />
      <span aria-hidden="true">{counts ? counts.responding : "?"}</span>
      {mineIcon(state)}
    </button>
  );
}

/**
 * The answers' place in the card's header (issue 26): a compact toggle with the number responding and
 * the member's own answer, which opens the answer row below the card's text. The admin console
 * (`readOnly`) shows the counts there instead. Nothing shows for a job that takes no answers.
 */
export function CardAnswersToggle({
  alertId,
  pages,
  readOnly = false,
  panel,
}: CardJob & { panel: CardPanel }) {
  const { answerable, summary } = useCardSummary(alertId, pages);
  const online = useOnlineStatus();
  if (!answerable) return null;
  if (!summary.data) {
    if (summary.isPending && online) return <LoadingToggle />;
    if (online || readOnly || summary.data === null) return null;
    return <AnswersToggleButton summary={offlineSummary(alertId)} counts={null} panel={panel} />;
  }
  if (readOnly) {
    return (
      <span className="answers-count">
        <Icon path={groupsPath} fontSize="small" />
        {describeResponseCounts(summary.data)}
      </span>
    );
  }
  return <AnswersToggleButton summary={summary.data} counts={summary.data} panel={panel} />;
}

/**
 * The answer row of a card whose job takes answers, shown while its panel is open: the live counts
 * and the one-tap 'Responding' / 'Not available' buttons with the member's own answer. Counts of all
 * the cards on screen arrive in one request. Offline with no counts loaded (the app opened without a
 * network) the buttons still take an answer, kept until the network returns; the server then decides.
 */
export function CardResponses({ readOnly = false, ...job }: CardJob & { panel: CardPanel }) {
  // Closed, as every card first renders, the row holds no query of its own (issue 31: one observer
  // fewer per card in the render that puts the first page on screen).
  if (readOnly || !job.panel.open) return null;
  return <OpenCardResponses {...job} />;
}

function OpenCardResponses({ alertId, pages, panel }: CardJob & { panel: CardPanel }) {
  const { answerable, summary } = useCardSummary(alertId, pages);
  const online = useOnlineStatus();
  if (!answerable) return null;
  if (!summary.data) {
    if (online || summary.data === null) return null;
    return (
      <fieldset id={panel.id} aria-label="Who is responding" className="card-responses">
        <p className="kit-text-body2 kit-text-secondary">{OFFLINE_COUNTS_TEXT}</p>
        <CardAnswer summary={offlineSummary(alertId)} />
      </fieldset>
    );
  }
  return (
    <fieldset id={panel.id} aria-label="Who is responding" className="card-responses">
      <ResponseCounts counts={summary.data} />
      <CardAnswer summary={summary.data} />
    </fieldset>
  );
}
