import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import CloudOffIcon from "@mui/icons-material/CloudOff";
import DoNotDisturbOnIcon from "@mui/icons-material/DoNotDisturbOn";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import type { ResponseEta, ResponseStatus } from "@turnout/domain";
import type { ReactNode } from "react";
import { CLOSED_TEXT, describeAnswer, PENDING_TEXT } from "./labels";
import type { AnswerState } from "./use-answer";

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
        sx={{ flex: "1 1 8rem", fontSize: "1rem", whiteSpace: "nowrap" }}
      >
        {label}
      </Button>
    );
  };
  return (
    <Box>
      <Box
        role="group"
        aria-label={`Your answer to ${jobLabel}`}
        sx={{ display: "flex", flexWrap: "wrap", gap: 1 }}
      >
        {button("responding", "Responding", <CheckCircleIcon aria-hidden="true" />)}
        {button("not_available", "Not available", <DoNotDisturbOnIcon aria-hidden="true" />)}
      </Box>
      {!open ? (
        <Typography variant="body2" sx={{ mt: 0.75, color: "text.secondary", fontWeight: 600 }}>
          {CLOSED_TEXT}
        </Typography>
      ) : null}
    </Box>
  );
}

/** The member's own answer with its time, whether it still waits for the network, and any failure. */
export function AnswerNote({ state }: { state: AnswerState }) {
  return (
    <>
      {state.mine ? (
        <Typography variant="body2" sx={{ mt: 0.75, fontWeight: 600 }}>
          {`You: ${describeAnswer(state.mine)}`}
          {state.pending ? (
            <Box
              component="span"
              role="status"
              sx={{ display: "inline-flex", alignItems: "center", gap: 0.5, ml: 1, color: "warning.main" }}
            >
              <CloudOffIcon fontSize="inherit" aria-hidden="true" />
              {PENDING_TEXT}
            </Box>
          ) : null}
        </Typography>
      ) : null}
      {state.refused ? (
        <Typography variant="body2" role="alert" sx={{ mt: 0.75, color: "error.main" }}>
          {`Your answer (${describeAnswer(state.refused)}) was not sent: ${state.refused.refused}`}
        </Typography>
      ) : null}
      {state.error ? (
        <Typography variant="body2" role="alert" sx={{ mt: 0.75, color: "error.main" }}>
          {state.error}
        </Typography>
      ) : null}
    </>
  );
}
