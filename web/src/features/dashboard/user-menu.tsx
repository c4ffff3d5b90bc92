import { canOpenAdminConsole, formatBadgeCount } from "@turnout/domain";
import { memo, useId, useState } from "react";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { checkCirclePath, Icon, syncPath, syncProblemPath } from "../../ui/kit/icons";
import { IconButton } from "../../ui/kit/kit";
import { LazyMount } from "../../ui/lazy-mount";
import { lazyWithTheme } from "../../ui/lazy-with-theme";
import "./dashboard.css";

// The open menu is built with MUI: its code and MUI's theme start loading before the click (pointer or
// focus on the button); a failure shows when the menu opens.
const UserMenuList = lazyWithTheme(() => import("./user-menu-list").then((module) => module.default));

/** The live state in words, for the avatar's tooltip and screen readers (colour is never the only cue). */
export const CONNECTION_LABEL: Record<LiveConnectionState, string> = {
  connected: "Live updates: connected",
  connecting: "Live updates: connecting",
  reconnecting: "Live updates: reconnecting",
  disconnected: "Live updates: disconnected",
  failed: "Live updates: failed",
};

/** The pill's word for each state that is not live. */
const NOT_LIVE_WORD: Record<Exclude<LiveConnectionState, "connected">, string> = {
  connecting: "Connecting",
  reconnecting: "Reconnecting",
  disconnected: "Not live",
  failed: "Not live",
};

/** A shape per state, so the state reads without colour: a tick, turning arrows, arrows with a '!'. */
const CONNECTION_ICON: Record<LiveConnectionState, string> = {
  connected: checkCirclePath,
  connecting: syncPath,
  reconnecting: syncPath,
  disconnected: syncProblemPath,
  failed: syncProblemPath,
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
 * on non-mobile devices) and 'Sign out'. The button and pill are plain elements styled by dashboard.css
 * (issue 31); the opened menu is MUI's, loaded on demand. Memoised: the feed's page renders several
 * times while it opens, and none of those renders changes what the button shows.
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
  const stateIcon = CONNECTION_ICON[connection];
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
        <div aria-hidden="true" data-not-live={connection} className="dashboard-not-live">
          <Icon path={stateIcon} fontSize={18} />
          <span className="kit-from-sm">{NOT_LIVE_WORD[connection]}</span>
        </div>
      )}
      <div className="kit-from-sm dashboard-user">
        <p className="dashboard-user__name">{fullName}</p>
        <p className="kit-text-caption" aria-hidden="true">
          {connected ? "Live" : CONNECTION_LABEL[connection].replace("Live updates: ", "Live: ")}
        </p>
      </div>
      <IconButton
        title={CONNECTION_LABEL[connection]}
        aria-label={`User menu for ${fullName}`}
        aria-describedby={statusId}
        aria-haspopup="menu"
        aria-controls={anchor ? menuId : undefined}
        aria-expanded={anchor ? "true" : undefined}
        onClick={(event) => setAnchor(event.currentTarget)}
        onPointerEnter={UserMenuList.preload}
        onPointerDown={UserMenuList.preload}
        onFocus={UserMenuList.preload}
        color="inherit"
        data-connection={connection}
      >
        {/*
            The ring is the header's own text colour (currentColor: the button inherits it), white
            on the light theme's red header and on the dark theme's grey one, so the red avatar
            never melts into a red header (WCAG non-text contrast 3:1; e2e measures it).
          */}
        <span
          data-connection-ring=""
          className={
            connected ? "dashboard-avatar dashboard-avatar--live" : "dashboard-avatar dashboard-avatar--down"
          }
        >
          <span className="dashboard-avatar__initials">{initialsOf(user)}</span>
          <Icon
            path={stateIcon}
            fontSize={18}
            className="dashboard-avatar__state"
            data-connection-icon={connection}
          />
        </span>
        {unread ? (
          <span aria-hidden="true" className="dashboard-unread">
            {unread}
          </span>
        ) : null}
        <span id={statusId} hidden>
          {CONNECTION_LABEL[connection]}
          {unread ? `, ${unread} unread feedback` : ""}
        </span>
      </IconButton>
      {/*
          Mounted from its first opening (closed, MUI's Menu still renders its popover's hooks), and its
          code (MUI's Menu, the entries' icons, MUI's theme) loaded then, or when the pointer or focus
          reaches the button: nothing the feed does not show on first paint in its critical path (issue 31).
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
