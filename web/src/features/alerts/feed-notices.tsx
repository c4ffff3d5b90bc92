import { formatDateTime, MESSAGES } from "@turnout/domain";
import { useEffect, useState } from "react";
import { isApiError } from "../../api/errors";
import type { LiveConnectionState } from "../../api/live-socket";
import { cloudOffPath, Icon } from "../../ui/kit/icons";
import { Button, Notice, Spinner } from "../../ui/kit/kit";
import "./feed.css";

/** The feed's first page is on its way. */
export function FeedLoading() {
  return (
    <div role="status" className="feed-progress feed-progress--first">
      <Spinner size={28} />
      <p className="kit-text-body1">Loading alerts…</p>
    </div>
  );
}

/** The feed could not load (SPEC 8): the server's message, else 'Failed to load alerts', with Retry. */
export function FeedLoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <Notice
      severity="error"
      title="Could not load alerts"
      action={
        <Button color="inherit" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {(isApiError(error) && error.serverMessage) || MESSAGES.ALERTS_LOAD_FAILED}
    </Notice>
  );
}

/** The feed holds nothing to show: 'No alerts found' (SPEC 2). */
export function NoAlertsNotice() {
  return <p className="kit-text-h6 kit-text-secondary feed-no-alerts">{MESSAGES.NO_ALERTS}</p>;
}

/** What each live connection state means to the user, in words (the avatar's colour says it too). */
export const LIVE_STATE_TEXT: Record<LiveConnectionState, string> = {
  connected: "Live updates connected",
  connecting: "Connecting to live updates…",
  reconnecting: "Live updates lost. Reconnecting…",
  disconnected: "Live updates are off. New alerts will not appear until you reconnect.",
  failed: "Live updates failed. New alerts will not appear until you reconnect.",
};

/**
 * How long the first connection may take before the feed says so: the header's live indicator says
 * "Connecting" from the start, and a line that came and went within a normal start moved every card
 * (issue 31: the cards now often arrive before the channel connects).
 */
export const CONNECTING_NOTICE_DELAY_MS = 2_000;

/**
 * A line under the header whenever the live channel is not connected: nothing pretends to be live. The
 * first connection gets CONNECTING_NOTICE_DELAY_MS before its line shows.
 */
export function LiveStatusNotice({
  state,
  online,
  onReconnect,
}: {
  state: LiveConnectionState;
  online: boolean;
  onReconnect: () => void;
}) {
  const [connectingLong, setConnectingLong] = useState(false);
  useEffect(() => {
    if (state !== "connecting") return;
    const timer = window.setTimeout(() => setConnectingLong(true), CONNECTING_NOTICE_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [state]);
  if (state === "connected" || (state === "connecting" && !connectingLong)) return null;
  const canRetry = online && (state === "failed" || state === "disconnected");
  return (
    <Notice
      severity={state === "connecting" ? "info" : state === "reconnecting" ? "warning" : "error"}
      data-live-state={state}
      className="feed-notice"
      action={
        canRetry ? (
          <Button color="inherit" onClick={onReconnect}>
            Reconnect
          </Button>
        ) : undefined
      }
    >
      {LIVE_STATE_TEXT[state]}
    </Notice>
  );
}

/** 'You are offline. Showing alerts loaded at <time>.' (or that nothing could be kept). */
export function OfflineNotice({ loadedAt }: { loadedAt: number | null }) {
  return (
    <Notice severity="warning" icon={<Icon path={cloudOffPath} />} className="feed-notice" role="status">
      {loadedAt === null
        ? "You are offline. Alerts will load when the connection returns."
        : `You are offline. Showing alerts loaded at ${formatDateTime(loadedAt)}.`}
    </Notice>
  );
}

/**
 * Why no alerts will arrive when the live channel joined no agency: the user's own filters hide
 * every agency they belong to (with the way out), or, as the server says, nobody assigned them one.
 */
export function NoAgencyNotice({
  serverWarning,
  filtersHideAll,
  onOpenSettings,
}: {
  serverWarning: string;
  filtersHideAll: boolean;
  onOpenSettings: () => void;
}) {
  if (!filtersHideAll) {
    return (
      <Notice severity="info" className="feed-notice">
        {serverWarning}
      </Notice>
    );
  }
  return (
    <Notice
      severity="info"
      className="feed-notice"
      action={
        <Button color="inherit" onClick={onOpenSettings}>
          Open filter settings
        </Button>
      }
    >
      Your alert filters hide every agency you belong to, so no alerts will show or arrive. Open the filter
      settings to show one again.
    </Notice>
  );
}
