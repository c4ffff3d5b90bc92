import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import Typography from "@mui/material/Typography";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  type AnswerablePage,
  etaLabel,
  jobAnswerability,
  RESPONSE_ETAS,
  type ResponseEta,
} from "@turnout/domain";
import { useId, useState } from "react";
import { useOnlineStatus } from "../../ui/use-online-status";
import { AnswerButtons, AnswerNote } from "./answer-controls";
import { AnswersSection, NotAnswerable } from "./answers-section";
import { answerTimeLabel, STATUS_LABELS } from "./labels";
import { applyJobResponses, jobResponsesQueryOptions } from "./queries";
import { type JobResponses as JobResponsesData, type Respondent, respondingApi } from "./responding-api";
import { type AnswerState, useAnswer } from "./use-answer";

/** The answers of the members the caller may see: name, answer, ETA and time; responding first. */
export function PeopleList({
  people,
  label,
}: {
  people: Array<Respondent & { agency_names?: string[] }>;
  label: string;
}) {
  if (people.length === 0) return null;
  return (
    <List dense aria-label={label} sx={{ mt: 1 }}>
      {people.map((person) => (
        <ListItem key={person.user_id} disableGutters divider>
          <ListItemText
            primary={`${person.first_name} ${person.last_name}`}
            secondary={[
              person.eta_minutes !== null ? `ETA ${etaLabel(person.eta_minutes)}` : null,
              answerTimeLabel(person.answered_at),
              person.agency_names?.length ? person.agency_names.join(", ") : null,
            ]
              .filter(Boolean)
              .join(" · ")}
            slotProps={{ primary: { sx: { fontWeight: 600 } } }}
          />
          <Chip
            size="small"
            label={STATUS_LABELS[person.status]}
            color={person.status === "responding" ? "success" : "default"}
            variant={person.status === "responding" ? "filled" : "outlined"}
            sx={{ ml: 1, fontWeight: 600 }}
          />
        </ListItem>
      ))}
    </List>
  );
}

/** The optional ETA of a 'Responding' answer: changing it while responding sends the answer again. */
function EtaChoice({
  state,
  open,
  eta,
  onChange,
}: {
  state: AnswerState;
  open: boolean;
  eta: ResponseEta | null;
  onChange: (eta: ResponseEta | null) => void;
}) {
  const labelId = useId();
  return (
    <Box sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mt: 1.5 }}>
      <Typography id={labelId} variant="body2" sx={{ fontWeight: 600 }}>
        ETA (optional)
      </Typography>
      <ToggleButtonGroup
        exclusive
        size="small"
        color="success"
        value={eta}
        disabled={!open || state.busy}
        aria-labelledby={labelId}
        onChange={(_event, value: ResponseEta | null) => onChange(value)}
      >
        {RESPONSE_ETAS.map((minutes) => (
          <ToggleButton key={minutes} value={minutes} sx={{ minHeight: 44, minWidth: 64, fontWeight: 600 }}>
            {etaLabel(minutes)}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
    </Box>
  );
}

function JobAnswer({ alertId, job }: { alertId: number; job: JobResponsesData }) {
  const queryClient = useQueryClient();
  const online = useOnlineStatus();
  const state = useAnswer({ alertId, jobAlertId: job.job_alert_id }, job.mine);
  const [chosenEta, setChosenEta] = useState<ResponseEta | null>(null);
  const [withdrawError, setWithdrawError] = useState<string | null>(null);
  const responding = state.mine?.status === "responding";
  const eta = responding ? (state.mine?.eta_minutes ?? null) : chosenEta;

  const handleEta = (next: ResponseEta | null) => {
    setChosenEta(next);
    if (responding) void state.answer("responding", next);
  };
  const handleWithdraw = async () => {
    setWithdrawError(null);
    try {
      applyJobResponses(queryClient, alertId, await respondingApi.withdraw(alertId));
    } catch (error) {
      setWithdrawError(error instanceof Error ? error.message : "Your answer could not be withdrawn.");
    }
  };

  return (
    <>
      <Box sx={{ mt: 1.5 }}>
        <AnswerButtons state={state} open={job.open} eta={eta} jobLabel={`job ${alertId}`} />
      </Box>
      {job.open ? <EtaChoice state={state} open={job.open} eta={eta} onChange={handleEta} /> : null}
      <AnswerNote state={state} />
      {job.open && job.mine && !state.pending && online ? (
        <Button size="small" onClick={() => void handleWithdraw()} sx={{ mt: 0.5 }}>
          Withdraw my answer
        </Button>
      ) : null}
      {withdrawError ? (
        <Typography variant="body2" role="alert" sx={{ color: "error.main" }}>
          {withdrawError}
        </Typography>
      ) : null}
    </>
  );
}

/**
 * The popup's "Who is responding": the buttons, an optional ETA, the live counts and the names of
 * the members of the caller's agencies (kept current while the popup is open). A job that takes no
 * answers (domain jobAnswerability over its pages) says why, and nothing is asked of the server; one
 * that is not the caller's to answer shows nothing.
 */
export function JobResponses({ alertId, pages }: { alertId: number; pages: readonly AnswerablePage[] }) {
  const answerability = jobAnswerability(pages);
  const query = useQuery({ ...jobResponsesQueryOptions(alertId), enabled: answerability.answerable });
  if (!answerability.answerable)
    return <NotAnswerable title="Who is responding" reason={answerability.reason} />;
  return (
    <AnswersSection title="Who is responding" query={query} failureText="Could not load who is responding.">
      {(job) => (
        <>
          <JobAnswer alertId={alertId} job={job} />
          <PeopleList people={job.people} label="Members' answers" />
        </>
      )}
    </AnswersSection>
  );
}
