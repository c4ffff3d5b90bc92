import { type FeedView, feedViewLabel } from "@turnout/domain";
import { groupsPath, Icon, publicPath } from "../../ui/kit/icons";
import { Chip } from "../../ui/kit/kit";
import type { MemberView } from "./alerts-api";
import "./feed.css";

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
  const options: { value: FeedView; label: string; icon: string }[] = [
    { value: "units", label: feedViewLabel("units", member.units, member.agencies), icon: groupsPath },
    { value: "agencies", label: feedViewLabel("agencies", member.units, member.agencies), icon: publicPath },
  ];
  return (
    <fieldset aria-label="Which jobs to show" className="feed-chips feed-chips--view">
      {options.map((option) => {
        const on = option.value === view;
        return (
          <Chip
            key={option.value}
            icon={<Icon path={option.icon} />}
            label={option.label}
            color="primary"
            variant={on ? "filled" : "outlined"}
            className={on ? "feed-view-chip--on" : undefined}
            aria-pressed={on}
            onClick={() => onChange(option.value)}
          />
        );
      })}
    </fieldset>
  );
}
