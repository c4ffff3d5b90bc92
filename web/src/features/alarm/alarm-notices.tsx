import { formatDateTime } from "@turnout/domain";
import { Icon, notificationsActivePath, notificationsOffPath, volumeOffPath } from "../../ui/kit/icons";
import { Button, IconButton, Notice } from "../../ui/kit/kit";
import type { AlarmControls } from "./use-alarm";
import "./alarm-notices.css";

/**
 * What the alarm says at the foot of the screen: while it sounds, a Silence button; while the browser
 * has not allowed sound yet (no tap since the page loaded, or a sound it blocked), that one tap
 * anywhere turns it on. Said once: the first tap unlocks the sound and the notice goes. Plain elements
 * styled by alarm-notices.css and the kit (issue 31): it is part of the feed's first paint.
 */
export function AlarmNotices({ alarm }: { alarm: AlarmControls }) {
  const { player, muted } = alarm;
  let notice = null;
  if (player.sounding === "alarm") {
    notice = (
      <Notice
        severity="error"
        variant="filled"
        icon={<Icon path={notificationsActivePath} />}
        className="alarm-notices__sounding"
        action={
          <Button
            color="inherit"
            variant="outlined"
            onClick={alarm.silence}
            className="alarm-notices__silence"
          >
            Silence
          </Button>
        }
      >
        Emergency page
      </Notice>
    );
  } else if (player.locked && !muted) {
    notice = (
      <Notice
        severity="info"
        variant="filled"
        icon={<Icon path={volumeOffPath} />}
        data-alarm-locked={player.blocked}
        className="alarm-notices__locked"
      >
        {player.blocked
          ? "A page could not sound: the browser blocked it. Tap anywhere to turn the alarm sound on."
          : "Tap anywhere to turn the alarm sound on."}
      </Notice>
    );
  }
  return (
    <div role="status" className="alarm-notices">
      {notice}
    </div>
  );
}

/** A header button while the alarm is muted: says until when, and opens the alarm settings. */
export function AlarmMutedButton({ alarm, onOpen }: { alarm: AlarmControls; onOpen: () => void }) {
  if (!alarm.muted || alarm.settings.mutedUntil === null) return null;
  const label = `Alarm muted until ${formatDateTime(alarm.settings.mutedUntil)}`;
  return (
    <IconButton color="inherit" title={label} aria-label={label} onClick={onOpen}>
      <Icon path={notificationsOffPath} />
    </IconButton>
  );
}
