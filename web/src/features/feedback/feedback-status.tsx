import Chip from "@mui/material/Chip";
import type { FeedbackStatus } from "@turnout/domain";

/** Each conversation status in words, with a chip colour (the words carry the meaning, not the colour). */
export const FEEDBACK_STATUS_PRESENTATION: Record<
  FeedbackStatus,
  { label: string; color: "info" | "warning" | "default" }
> = {
  open: { label: "Open", color: "info" },
  in_progress: { label: "In progress", color: "warning" },
  closed: { label: "Closed", color: "default" },
};

/** A conversation's status as a small chip. */
export function FeedbackStatusChip({ status }: { status: FeedbackStatus }) {
  const { label, color } = FEEDBACK_STATUS_PRESENTATION[status];
  return <Chip size="small" label={label} color={color} variant="outlined" />;
}
