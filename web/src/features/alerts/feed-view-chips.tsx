import GroupsIcon from "@mui/icons-material/Groups";
import PublicIcon from "@mui/icons-material/Public";
import Box from "@mui/material/Box";
import Chip from "@mui/material/Chip";
import { type FeedView, feedViewLabel } from "@turnout/domain";
import type { MemberView } from "./alerts-api";
import { touchTarget } from "./touch-target";

/**
 * Which view the feed is in (issue 26), for a member who chose units: their units' jobs (the default)
 * or their whole agencies', one tap apart. The chip that is on is filled and pressed; nothing shows for
 * a member without units (their agencies are their only view).
 */
export function FeedViewChips({
  view,
  member,
  onChange,
}: {
  view: FeedView;
  member: MemberView | undefined;
  onChange: (view: FeedView) => void;
}) {
  if (!member || member.units.length === 0) return null;
  const options: { value: FeedView; label: string; icon: React.ReactElement }[] = [
    { value: "units", label: feedViewLabel("units", member.units, member.agencies), icon: <GroupsIcon /> },
    {
      value: "agencies",
      label: feedViewLabel("agencies", member.units, member.agencies),
      icon: <PublicIcon />,
    },
  ];
  return (
    <Box
      role="group"
      aria-label="Which jobs to show"
      sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mb: 1.5 }}
    >
      {options.map((option) => {
        const on = option.value === view;
        return (
          <Chip
            key={option.value}
            icon={option.icon}
            label={option.label}
            color="primary"
            variant={on ? "filled" : "outlined"}
            aria-pressed={on}
            onClick={() => onChange(option.value)}
            sx={{ ...touchTarget, maxWidth: "100%", fontWeight: on ? 600 : 400 }}
          />
        );
      })}
    </Box>
  );
}
