import BlockIcon from "@mui/icons-material/Block";
import CancelIcon from "@mui/icons-material/Cancel";
import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import HourglassTopIcon from "@mui/icons-material/HourglassTop";
import Chip from "@mui/material/Chip";
import { RULE_PREVIEW_MONTHS, type RuleStatus } from "@turnout/domain";
import type { ReactElement } from "react";
import type { RulePreviewResult } from "../api/rule-preview";

// How an alert rule reads wherever it is shown: to the member in My Alerts, to the admin in User Alerts.

/** Each status says itself in words and with an icon, not only in colour. */
export const STATUS_PRESENTATION: Record<
  RuleStatus,
  { label: string; color: "warning" | "success" | "error" | "default"; icon: ReactElement }
> = {
  pending: { label: "Pending review", color: "warning", icon: <HourglassTopIcon /> },
  approved: { label: "Approved", color: "success", icon: <CheckCircleIcon /> },
  rejected: { label: "Rejected", color: "error", icon: <CancelIcon /> },
  suspended: { label: "Suspended", color: "default", icon: <BlockIcon /> },
};

export function RuleStatusChip({ status }: { status: RuleStatus }) {
  const { label, color, icon } = STATUS_PRESENTATION[status];
  return <Chip size="small" color={color} icon={icon} label={label} variant="outlined" />;
}

/** "12 matching messages in the last 3 months" ("More than 1000 …" when the server's count was capped). */
export function previewMatchesText({
  total_matches: total,
  total_matches_capped: capped,
}: Pick<RulePreviewResult, "total_matches" | "total_matches_capped">): string {
  const count = capped ? `More than ${total}` : String(total);
  const noun = total === 1 && !capped ? "message" : "messages";
  return `${count} matching ${noun} in the last ${RULE_PREVIEW_MONTHS} months`;
}
