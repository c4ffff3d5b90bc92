import type { ResponseEta, ResponseStatus } from "@turnout/domain";
import type { ReactNode } from "react";
import { checkCirclePath, cloudOffPath, doNotDisturbOnPath, Icon } from "../../ui/kit/icons";
import { Button } from "../../ui/kit/kit";
import { CLOSED_TEXT, describeAnswer, PENDING_TEXT } from "./labels";
import type { AnswerState } from "./use-answer";
import "./answers.css";

/**
 * The one-tap 'Responding' / 'Not available' buttons; the member's current answer is the filled one
 * (and pressed, for screen readers). A closed job shows 'Closed for responses' with the buttons off.
 */
export function AnswerButtons({
  state,
  open,
  eta,
  jobLabel,
}: {
  state: AnswerState;
  open: boolean;
  /** The ETA chosen beside the buttons (the popup), sent with 'Responding'. */
  eta: ResponseEta | null;
  /** Names the job for screen readers, e.g. "job 4711". */
  jobLabel: string;
}) {
  const current = state.mine?.status ?? null;
  const disabled = !open || state.busy;
  const button = (status: ResponseStatus, label: string, icon: ReactNode) => {
    const chosen = current === status;
    return (
      <Button
        variant={chosen ? "contained" : "outlined"}
        color={status === "responding" ? "success" : "inherit"}
        startIcon={icon}
        aria-pressed={chosen}
        disabled={disabled}
        onClick={() => void state.answer(status, status === "responding" ? eta : null)}
        className="answer-button"
      >
        {label}
      </Button>
    );
  };
  return (
    <div>
      <fieldset aria-label={`Your answer to ${jobLabel}`} className="answer-buttons">
        {button("responding", "Responding", <Icon path={checkCirclePath} />)}
        {button("not_available", "Not available", <Icon path={doNotDisturbOnPath} />)}
      </fieldset>
      {!open ? (
        <p className="kit-text-body2 kit-text-secondary answer-line answer-line--strong">{CLOSED_TEXT}</p>
      ) : null}
    </div>
  );
}

/** The member's own answer with its time, whether it still waits for the network, and any failure. */
export function AnswerNote({ state }: { state: AnswerState }) {
  return (
    <>
      {state.mine ? (
        <p className="kit-text-body2 answer-line answer-line--strong">
          {`You: ${describeAnswer(state.mine)}`}
          {state.pending ? (
            <span role="status" className="answer-pending">
              <Icon path={cloudOffPath} fontSize="inherit" />
              {PENDING_TEXT}
            </span>
          ) : null}
        </p>
      ) : null}
      {state.refused ? (
        <p role="alert" className="kit-text-body2 answer-line answer-line--error">
          {`Your answer (${describeAnswer(state.refused)}) was not sent: ${state.refused.refused}`}
        </p>
      ) : null}
      {state.error ? (
        <p role="alert" className="kit-text-body2 answer-line answer-line--error">
          {state.error}
        </p>
      ) : null}
    </>
  );
}
