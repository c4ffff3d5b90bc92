import Chip, { type ChipProps } from "@mui/material/Chip";
import type { UserStatus } from "./users-api";

const LOOK: Record<UserStatus, { label: string; color: ChipProps["color"]; variant: ChipProps["variant"] }> =
  {
    active: { label: "Active", color: "success", variant: "outlined" },
    // Filled and orange: an account waiting for review is the one thing on this list to act on.
    pending_review: { label: "Pending review", color: "warning", variant: "filled" },
    unverified: { label: "Unverified", color: "info", variant: "outlined" },
    inactive: { label: "Inactive", color: "default", variant: "outlined" },
  };

/** An account's state in words, coloured so pending reviews stand out. */
export function UserStatusChip({ status }: { status: UserStatus }) {
  const look = LOOK[status];
  return <Chip size="small" label={look.label} color={look.color} variant={look.variant} />;
}

/** The label of a state, as the chip and the filter say it. */
export function userStatusLabel(status: UserStatus): string {
  return LOOK[status].label;
}
