import AdminPanelSettingsIcon from "@mui/icons-material/AdminPanelSettings";
import AlarmIcon from "@mui/icons-material/Alarm";
import DevicesIcon from "@mui/icons-material/Devices";
import FeedbackIcon from "@mui/icons-material/Feedback";
import GroupsIcon from "@mui/icons-material/Groups";
import LogoutIcon from "@mui/icons-material/Logout";
import NotificationsIcon from "@mui/icons-material/Notifications";
import NotificationsActiveIcon from "@mui/icons-material/NotificationsActive";
import PhonelinkRingIcon from "@mui/icons-material/PhonelinkRing";
import Badge from "@mui/material/Badge";
import Divider from "@mui/material/Divider";
import ListItemIcon from "@mui/material/ListItemIcon";
import ListItemText from "@mui/material/ListItemText";
import ListSubheader from "@mui/material/ListSubheader";
import Menu from "@mui/material/Menu";
import MenuItem from "@mui/material/MenuItem";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";
import type { UserMenuSlots } from "./user-menu";

function MenuEntry({
  icon,
  label,
  onClick,
  badge,
}: {
  icon: ReactNode;
  label: string;
  onClick: (() => void) | undefined;
  badge?: string;
}) {
  const content = (
    <>
      <ListItemIcon>
        <Badge color="error" badgeContent={badge} invisible={!badge}>
          {icon}
        </Badge>
      </ListItemIcon>
      <ListItemText
        primary={label}
        secondary={onClick ? undefined : "Coming soon"}
        slotProps={{ secondary: { sx: { color: "text.secondary" } } }}
      />
    </>
  );
  if (onClick) return <MenuItem onClick={onClick}>{content}</MenuItem>;
  // Focusable but inert (ARIA menus keep disabled items reachable), so the reason can be read.
  return (
    <MenuItem
      aria-disabled="true"
      title="Coming soon"
      onClick={(event) => event.preventDefault()}
      sx={{ opacity: 0.7 }}
    >
      {content}
    </MenuItem>
  );
}

/**
 * The user menu's open list (user-menu.tsx): who is signed in, the live state in words, the member's
 * own settings, the admin console for admins, and sign out. Loaded when first wanted (React.lazy).
 */
export default function UserMenuList({
  id,
  anchor,
  onClose,
  fullName,
  phone,
  connectionLabel,
  slots,
  showAdmin,
  unread,
  onSignOut,
  signingOut,
}: {
  id: string;
  anchor: HTMLElement | null;
  onClose: () => void;
  fullName: string;
  phone: string;
  connectionLabel: string;
  slots: UserMenuSlots;
  showAdmin: boolean;
  /** Unread feedback, as the badge shows it ("" for none). */
  unread: string;
  onSignOut: () => void;
  signingOut: boolean;
}) {
  const run = (action: (() => void) | undefined) =>
    action
      ? () => {
          onClose();
          action();
        }
      : undefined;
  return (
    <Menu id={id} anchorEl={anchor} open={anchor !== null} onClose={onClose}>
      <ListSubheader component="div" disableSticky sx={{ lineHeight: 1.4, py: 1 }}>
        <Typography component="span" sx={{ display: "block", fontWeight: 600, color: "text.primary" }}>
          {fullName}
        </Typography>
        <Typography component="span" variant="body2" sx={{ display: "block", color: "text.secondary" }}>
          {phone}
        </Typography>
        <Typography component="span" variant="body2" sx={{ display: "block", color: "text.secondary" }}>
          {connectionLabel}
        </Typography>
      </ListSubheader>
      <Divider />
      <MenuEntry
        icon={<NotificationsActiveIcon fontSize="small" />}
        label="My Alerts"
        onClick={run(slots.onOpenMyAlerts)}
      />
      <MenuEntry icon={<GroupsIcon fontSize="small" />} label="My units" onClick={run(slots.onOpenMyUnits)} />
      <MenuEntry
        icon={<DevicesIcon fontSize="small" />}
        label="My devices"
        onClick={run(slots.onOpenMyDevices)}
      />
      <MenuEntry
        icon={<PhonelinkRingIcon fontSize="small" />}
        label="Push notifications"
        onClick={run(slots.onOpenPush)}
      />
      <MenuEntry icon={<AlarmIcon fontSize="small" />} label="Alarm" onClick={run(slots.onOpenAlarm)} />
      <MenuEntry
        icon={<FeedbackIcon fontSize="small" />}
        label="Feedback"
        onClick={run(slots.onOpenFeedback)}
        badge={unread}
      />
      {showAdmin && slots.onBackToAlerts ? (
        <MenuEntry
          icon={<NotificationsIcon fontSize="small" />}
          label="Back to Alerts"
          onClick={run(slots.onBackToAlerts)}
        />
      ) : showAdmin ? (
        <MenuEntry
          icon={<AdminPanelSettingsIcon fontSize="small" />}
          label="Admin"
          onClick={run(slots.onOpenAdmin)}
        />
      ) : null}
      <Divider />
      <MenuItem onClick={onSignOut} disabled={signingOut}>
        <ListItemIcon>
          <LogoutIcon fontSize="small" />
        </ListItemIcon>
        Sign out
      </MenuItem>
    </Menu>
  );
}
