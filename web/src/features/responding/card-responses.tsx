import GroupsIcon from "@mui/icons-material/Groups";
import Box from "@mui/material/Box";
import Skeleton from "@mui/material/Skeleton";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { describeResponseCounts } from "@turnout/domain";
import { useOnlineStatus } from "../../ui/use-online-status";
import { AnswerButtons, AnswerNote } from "./answer-controls";
import { OFFLINE_COUNTS_TEXT } from "./labels";
import { summaryQueryOptions } from "./queries";
import type { ResponseSummary } from "./responding-api";
import { type AnswerState, useAnswer } from "./use-answer";

/** "4 responding, 1 not available" with an icon; the card's and the popup's count line. */
export function ResponseCounts({
  counts,
}: {
  counts: Pick<ResponseSummary, "responding" | "not_available">;
}) {
  return (
    <Typography
      component="p"
      sx={{ display: "flex", alignItems: "center", gap: 0.75, fontWeight: 700, color: "text.primary" }}
    >
      <GroupsIcon fontSize="small" aria-hidden="true" sx={{ color: "success.main" }} />
      {describeResponseCounts(counts)}
    </Typography>
  );
}

function CardAnswer({
  summary,
}: {
  summary: Pick<ResponseSummary, "alert_id" | "open" | "mine"> & { job_alert_id: number | null };
}) {
  const state = useAnswer({ alertId: summary.alert_id, jobAlertId: summary.job_alert_id }, summary.mine);
  return (
    <>
      <Box sx={{ mt: 1 }}>
        <AnswerButtons state={state} open={summary.open} eta={null} jobLabel={`job ${summary.alert_id}`} />
      </Box>
      <AnswerNote state={state} />
    </>
  );
}

const footSx = { px: 1.5, pb: 1.5, pt: 1, borderTop: 1, borderColor: "divider" } as const;

/** Buttons shown greyed while the counts load: nothing to press yet. */
const LOADING: AnswerState = {
  mine: null,
  pending: false,
  refused: null,
  error: null,
  busy: true,
  answer: async () => {},
};

/**
 * The foot's place while its counts load, as tall as the loaded foot of an unanswered job, so the
 * card does not grow under the reader (cards are measured once, as they scroll into view).
 */
function LoadingFoot({ readOnly }: { readOnly: boolean }) {
  return (
    <Box aria-hidden="true" inert sx={footSx}>
      <Skeleton variant="text" sx={{ width: "12rem", maxWidth: "100%" }}>
        <Typography component="p">{"\u00a0"}</Typography>
      </Skeleton>
      {readOnly ? null : (
        <Skeleton variant="rounded" sx={{ mt: 1, maxWidth: "none" }}>
          <AnswerButtons state={LOADING} open eta={null} jobLabel="" />
        </Skeleton>
      )}
    </Box>
  );
}

/**
 * The foot of an emergency job's card: the live counts and, for a member, the one-tap answer buttons
 * with their own answer. Counts of all the cards on screen arrive in one request. Nothing shows for a
 * job that takes no answers. Offline with no counts loaded (the app opened without a network) the
 * buttons still take an answer, kept until the network returns; the server then decides. While the
 * counts load, the foot's place is kept (greyed). `readOnly` (the admin console) shows the counts only.
 */
export function CardResponses({
  alertId,
  emergency,
  readOnly = false,
}: {
  alertId: number;
  emergency: boolean;
  readOnly?: boolean;
}) {
  const summary = useQuery({ ...summaryQueryOptions(alertId), enabled: emergency });
  const online = useOnlineStatus();
  if (!emergency) return null;
  if (!summary.data) {
    if (summary.isPending && online) return <LoadingFoot readOnly={readOnly} />;
    if (online || readOnly || summary.data === null) return null;
    return (
      <Box aria-label="Who is responding" role="group" sx={footSx}>
        <Typography variant="body2" sx={{ color: "text.secondary" }}>
          {OFFLINE_COUNTS_TEXT}
        </Typography>
        <CardAnswer summary={{ alert_id: alertId, job_alert_id: null, open: true, mine: null }} />
      </Box>
    );
  }
  return (
    <Box aria-label="Who is responding" role="group" sx={footSx}>
      <ResponseCounts counts={summary.data} />
      {readOnly ? null : <CardAnswer summary={summary.data} />}
    </Box>
  );
}
