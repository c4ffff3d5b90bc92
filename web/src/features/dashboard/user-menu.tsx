import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import SyncIcon from "@mui/icons-material/Sync";
import SyncProblemIcon from "@mui/icons-material/SyncProblem";
import Avatar from "@mui/material/Avatar";
import Badge from "@mui/material/Badge";
import Box from "@mui/material/Box";
import IconButton from "@mui/material/IconButton";
import Typography from "@mui/material/Typography";
import { canOpenAdminConsole, formatBadgeCount } from "@turnout/domain";
import { lazy, memo, useId, useState } from "react";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { LazyMount } from "../../ui/lazy-mount";

const loadUserMenuList = () => import("./user-menu-list");
const UserMenuList = lazy(loadUserMenuList);
/** Starts loading the open menu's code before the click; a failure shows when the menu opens. */
const preloadUserMenuList = () => {
  loadUserMenuList().catch(() => {});
};

/** The live state in words, for the avatar's tooltip and screen readers (colour is never the only cue). */
export const CONNECTION_LABEL: Record<LiveConnectionState, string> = {
  connected: "Live updates: connected",
  connecting: "Live updates: connecting",
  reconnecting: "Live updates: reconnecting",
  disconnected: "Live updates: disconnected",
  failed: "Live updates: failed",
};

/** Green when live, red otherwise; both carry white initials at AA contrast. */
const CONNECTED_COLOUR = "#2e7d32";
const NOT_CONNECTED_COLOUR = "#c62828";

/**
 * The 'not live' pill: amber with black text, at 5:1 against the light theme's red header and 10:1
 * against the dark theme's grey one (WCAG 1.4.11 asks 3:1; e2e measures it), so a dropped connection
 * shows in the header, where the red avatar alone melted into the red header.
 */
const NOT_LIVE_BACKGROUND = "#ffd54f";
const NOT_LIVE_TEXT = "#000";

/** The pill's word for each state that is not live. */
const NOT_LIVE_WORD: Record<Exclude<LiveConnectionState, "connected">, string> = {
  connecting: "Connecting",
  reconnecting: "Reconnecting",
  disconnected: "Not live",
  failed: "Not live",
};

/** A shape per state, so the state reads without colour: a tick, turning arrows, arrows with a '!'. */
const CONNECTION_ICON: Record<LiveConnectionState, typeof CheckCircleIcon> = {
  connected: CheckCircleIcon,
  connecting: SyncIcon,
  reconnecting: SyncIcon,
  disconnected: SyncProblemIcon,
  failed: SyncProblemIcon,
};

function initialsOf(user: SessionUser): string {
  return `${user.first_name.charAt(0)}${user.last_name.charAt(0)}`.toUpperCase() || "?";
}

/** The parts of the menu other features supply; an item without its handler shows as 'Coming soon'. */
export interface UserMenuSlots {
  onOpenMyAlerts?: (() => void) | undefined;
  /** 'My units' (issue 26): the member's brigades or units. */
  onOpenMyUnits?: (() => void) | undefined;
  /** 'My devices' (issue 27): the devices that sign in first while the phone is under attack. */
  onOpenMyDevices?: (() => void) | undefined;
  onOpenPush?: (() => void) | undefined;
  onOpenAlarm?: (() => void) | undefined;
  onOpenFeedback?: (() => void) | undefined;
  /** Unread feedback messages (non-admins): the badge shows 1 to 9, then '9+'. */
  feedbackUnread?: number | undefined;
  onOpenAdmin?: (() => void) | undefined;
  /** Set while the admin console is open: the admin item then reads 'Back to Alerts' (SPEC 2). */
  onBackToAlerts?: (() => void) | undefined;
}

/**
 * The user menu (SPEC 2): avatar with initials, green while the live channel is connected and red
 * otherwise, ringed in the header's text colour, with a state icon and words (tooltip, description)
 * for those who cannot tell the colours apart, and while not live an amber pill beside it that
 * stands out from the header in both themes (issue 26); name and phone;
 * 'My Alerts', 'My units', 'My devices', 'Push notifications', 'Alarm', 'Feedback', 'Admin' (admins
 * on non-mobile devices) and 'Sign out'. Memoised: the feed's page renders several times while it
 * opens, and the menu's button is a dozen MUI elements whose styles emotion works out on each render.
 */
export const UserMenu = memo(function UserMenu({
  user,
  connection,
  onSignOut,
  slots = {},
}: {
  user: SessionUser;
  connection: LiveConnectionState;
  onSignOut: () => Promise<void>;
  slots?: UserMenuSlots;
}) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [signingOut, setSigningOut] = useState(false);
  const menuId = useId();
  const statusId = useId();
  const fullName = `${user.first_name} ${user.last_name}`.trim();
  const connected = connection === "connected";
  const StateIcon = CONNECTION_ICON[connection];
  const showAdmin = canOpenAdminConsole(user, navigator.userAgent);
  const unread = user.is_admin ? "" : formatBadgeCount(slots.feedbackUnread ?? 0);

  const close = () => setAnchor(null);

  const handleSignOut = async () => {
    close();
    setSigningOut(true);
    try {
      await onSignOut();
    } finally {
      setSigningOut(false);
    }
  };

  return (
    <>
      {connection === "connected" ? null : (
        <Box
          aria-hidden="true"
          data-not-live={connection}
          sx={{
            display: "inline-flex",
            alignItems: "center",
            gap: 0.5,
            flexShrink: 0,
            height: 28,
            minWidth: 28,
            px: { xs: 0.5, sm: 1 },
            mr: 0.5,
            borderRadius: 14,
            bgcolor: NOT_LIVE_BACKGROUND,
            color: NOT_LIVE_TEXT,
            fontSize: "0.8125rem",
            fontWeight: 700,
            lineHeight: 1,
          }}
        >
          <StateIcon sx={{ fontSize: 18 }} />
          <Box component="span" sx={{ display: { xs: "none", sm: "inline" } }}>
            {NOT_LIVE_WORD[connection]}
          </Box>
        </Box>
      )}
      <Box sx={{ textAlign: "right", display: { xs: "none", sm: "block" }, mr: 0.5 }}>
        <Typography variant="body2" component="p" sx={{ fontWeight: 600 }}>
          {fullName}
        </Typography>
        <Typography variant="caption" component="p" aria-hidden="true">
          {connected ? "Live" : CONNECTION_LABEL[connection].replace("Live updates: ", "Live: ")}
        </Typography>
      </Box>
      <IconButton
        title={CONNECTION_LABEL[connection]}
        aria-label={`User menu for ${fullName}`}
        aria-describedby={statusId}
        aria-haspopup="menu"
        aria-controls={anchor ? menuId : undefined}
        aria-expanded={anchor ? "true" : undefined}
        onClick={(event) => setAnchor(event.currentTarget)}
        onPointerEnter={preloadUserMenuList}
        onPointerDown={preloadUserMenuList}
        onFocus={preloadUserMenuList}
        color="inherit"
        data-connection={connection}
      >
        {/*
            The ring is the header's own text colour (currentColor: the button inherits it), white
            on the light theme's red header and on the dark theme's grey one, so the red avatar
            never melts into a red header (WCAG non-text contrast 3:1; e2e measures it).
          */}
        <Badge
          overlap="circular"
          anchorOrigin={{ vertical: "bottom", horizontal: "right" }}
          data-connection-ring=""
          sx={{ borderRadius: "50%", boxShadow: "0 0 0 3px currentColor" }}
          badgeContent={
            <StateIcon
              aria-hidden="true"
              data-connection-icon={connection}
              sx={{
                fontSize: 18,
                color: connected ? CONNECTED_COLOUR : NOT_CONNECTED_COLOUR,
                bgcolor: "#fff",
                borderRadius: "50%",
              }}
            />
          }
        >
          <Avatar
            sx={{
              width: 36,
              height: 36,
              fontWeight: 700,
              color: "#fff",
              bgcolor: connected ? CONNECTED_COLOUR : NOT_CONNECTED_COLOUR,
            }}
          >
            {initialsOf(user)}
          </Avatar>
        </Badge>
        {unread ? (
          <Box
            component="span"
            aria-hidden="true"
            sx={{
              position: "absolute",
              top: 2,
              right: 2,
              minWidth: 18,
              height: 18,
              px: 0.5,
              borderRadius: 9,
              bgcolor: "#b71c1c",
              color: "#fff",
              border: "1px solid #fff",
              fontSize: 11,
              fontWeight: 700,
              lineHeight: "16px",
            }}
          >
            {unread}
          </Box>
        ) : null}
        <span id={statusId} hidden>
          {CONNECTION_LABEL[connection]}
          {unread ? `, ${unread} unread feedback` : ""}
        </span>
      </IconButton>
      {/*
          Mounted from its first opening (closed, MUI's Menu still renders its popover's hooks), and its
          code (MUI's Menu, the entries' icons) loaded then, or when the pointer or focus reaches the
          button: nothing the feed does not show on first paint in its critical path (issue 31).
        */}
      <LazyMount when={anchor !== null}>
        <UserMenuList
          id={menuId}
          anchor={anchor}
          onClose={close}
          fullName={fullName}
          phone={user.phone}
          connectionLabel={CONNECTION_LABEL[connection]}
          slots={slots}
          showAdmin={showAdmin}
          unread={unread}
          onSignOut={handleSignOut}
          signingOut={signingOut}
        />
      </LazyMount>
    </>
  );
});
