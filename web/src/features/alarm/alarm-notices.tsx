import NotificationsActiveIcon from "@mui/icons-material/NotificationsActive";
import NotificationsOffIcon from "@mui/icons-material/NotificationsOff";
import VolumeOffIcon from "@mui/icons-material/VolumeOff";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import IconButton from "@mui/material/IconButton";
import { formatDateTime } from "@turnout/domain";
import type { AlarmControls } from "./use-alarm";

/**
 * What the alarm says at the foot of the screen: while it sounds, a Silence button; while the browser
 * has not allowed sound yet (no tap since the page loaded, or a sound it blocked), that one tap
 * anywhere turns it on. Said once: the first tap unlocks the sound and the notice goes.
 */
export function AlarmNotices({ alarm }: { alarm: AlarmControls }) {
  const { player, muted } = alarm;
  let notice = null;
  if (player.sounding === "alarm") {
    notice = (
      <Alert
        severity="error"
        variant="filled"
        icon={<NotificationsActiveIcon />}
        sx={{ pointerEvents: "auto" }}
        action={
          <Button color="inherit" variant="outlined" onClick={alarm.silence} sx={{ fontWeight: 700 }}>
            Silence
          </Button>
        }
      >
        Emergency page
      </Alert>
    );
  } else if (player.locked && !muted) {
    notice = (
      <Alert
        severity="info"
        variant="filled"
        icon={<VolumeOffIcon />}
        data-alarm-locked={player.blocked}
        // White on the light theme's info blue is 3.85:1; its dark shade passes AA (Lighthouse, issue 31).
        sx={(theme) => (theme.palette.mode === "light" ? { bgcolor: theme.palette.info.dark } : {})}
      >
        {player.blocked
          ? "A page could not sound: the browser blocked it. Tap anywhere to turn the alarm sound on."
          : "Tap anywhere to turn the alarm sound on."}
      </Alert>
    );
  }
  return (
    <Box
      role="status"
      sx={{
        position: "fixed",
        bottom: 12,
        left: "50%",
        transform: "translateX(-50%)",
        width: "min(560px, calc(100% - 16px))",
        zIndex: (theme) => theme.zIndex.snackbar,
        // A tap on the notice reaches what lies under it (and, being a tap, unlocks the sound).
        pointerEvents: "none",
      }}
    >
      {notice}
    </Box>
  );
}

/** A header button while the alarm is muted: says until when, and opens the alarm settings. */
export function AlarmMutedButton({ alarm, onOpen }: { alarm: AlarmControls; onOpen: () => void }) {
  if (!alarm.muted || alarm.settings.mutedUntil === null) return null;
  const label = `Alarm muted until ${formatDateTime(alarm.settings.mutedUntil)}`;
  return (
    <IconButton color="inherit" title={label} aria-label={label} onClick={onOpen}>
      <NotificationsOffIcon />
    </IconButton>
  );
}
