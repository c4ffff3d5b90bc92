import CloudOffIcon from "@mui/icons-material/CloudOff";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { formatDateTime, MESSAGES } from "@turnout/domain";
import { useEffect, useState } from "react";
import { isApiError } from "../../api/errors";
import type { LiveConnectionState } from "../../api/live-socket";

/** The feed's first page is on its way. */
export function FeedLoading() {
  return (
    <Box
      role="status"
      sx={{ display: "flex", alignItems: "center", justifyContent: "center", gap: 1.5, py: 6 }}
    >
      <CircularProgress size={28} aria-hidden="true" />
      <Typography>Loading alerts…</Typography>
    </Box>
  );
}

/** The feed could not load (SPEC 8): the server's message, else 'Failed to load alerts', with Retry. */
export function FeedLoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <Alert
      severity="error"
      action={
        <Button color="inherit" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      <AlertTitle>Could not load alerts</AlertTitle>
      {(isApiError(error) && error.serverMessage) || MESSAGES.ALERTS_LOAD_FAILED}
    </Alert>
  );
}

/** The feed holds nothing to show: 'No alerts found' (SPEC 2). */
export function NoAlertsNotice() {
  return (
    <Typography component="p" variant="h6" sx={{ textAlign: "center", py: 6, color: "text.secondary" }}>
      {MESSAGES.NO_ALERTS}
    </Typography>
  );
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
    <Alert
      severity={state === "connecting" ? "info" : state === "reconnecting" ? "warning" : "error"}
      data-live-state={state}
      sx={{ mb: 2 }}
      action={
        canRetry ? (
          <Button color="inherit" onClick={onReconnect}>
            Reconnect
          </Button>
        ) : undefined
      }
    >
      {LIVE_STATE_TEXT[state]}
    </Alert>
  );
}

/** 'You are offline. Showing alerts loaded at <time>.' (or that nothing could be kept). */
export function OfflineNotice({ loadedAt }: { loadedAt: number | null }) {
  return (
    <Alert severity="warning" icon={<CloudOffIcon />} sx={{ mb: 2 }} role="status">
      {loadedAt === null
        ? "You are offline. Alerts will load when the connection returns."
        : `You are offline. Showing alerts loaded at ${formatDateTime(loadedAt)}.`}
    </Alert>
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
      <Alert severity="info" sx={{ mb: 2 }}>
        {serverWarning}
      </Alert>
    );
  }
  return (
    <Alert
      severity="info"
      sx={{ mb: 2 }}
      action={
        <Button color="inherit" onClick={onOpenSettings}>
          Open filter settings
        </Button>
      }
    >
      Your alert filters hide every agency you belong to, so no alerts will show or arrive. Open the filter
      settings to show one again.
    </Alert>
  );
}
