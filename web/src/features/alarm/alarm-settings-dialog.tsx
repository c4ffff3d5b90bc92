import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import DialogContent from "@mui/material/DialogContent";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import {
  DEFAULT_NON_EMERGENCY_CHOICE,
  formatDateTime,
  MUTE_HOUR_CHOICES,
  type NonEmergencyChoice,
  WAKE_LOCK_MINUTE_CHOICES,
} from "@turnout/domain";
import { useId, useState } from "react";
import { MemberDialog } from "../../ui/member-dialog";
import { alarmTargetsQueryOptions } from "./alarm-api";
import type { AlarmControls } from "./use-alarm";

const CHOICE_LABELS: Record<NonEmergencyChoice, string> = {
  tone: "Alarm",
  soft: "Soft tone",
  none: "Silent",
};

function minutesLabel(minutes: number): string {
  if (minutes === 0) return "Do not keep it on";
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** One unit's (or agency's) choice for its non-emergency pages. */
function ChoiceRow({
  name,
  value,
  onChange,
}: {
  name: string;
  value: NonEmergencyChoice;
  onChange: (choice: NonEmergencyChoice) => void;
}) {
  const labelId = useId();
  return (
    <Box
      sx={{
        display: "flex",
        flexWrap: "wrap",
        alignItems: "center",
        gap: 1,
        justifyContent: "space-between",
      }}
    >
      <Typography id={labelId} sx={{ fontWeight: 600 }}>
        {name}
      </Typography>
      <ToggleButtonGroup
        exclusive
        size="small"
        value={value}
        aria-labelledby={labelId}
        onChange={(_event, next: NonEmergencyChoice | null) => {
          if (next) onChange(next);
        }}
      >
        {(Object.keys(CHOICE_LABELS) as NonEmergencyChoice[]).map((choice) => (
          <ToggleButton key={choice} value={choice} sx={{ minHeight: 44, px: 1.5 }}>
            {CHOICE_LABELS[choice]}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
    </Box>
  );
}

/** The non-emergency choices: per unit when the member has units, otherwise per agency. */
function NonEmergencyChoices({ alarm, open }: { alarm: AlarmControls; open: boolean }) {
  const targets = useQuery({ ...alarmTargetsQueryOptions(), enabled: open });
  if (targets.isPending) return <CircularProgress size={24} aria-label="Loading your units" />;
  if (targets.isError) return <Alert severity="error">Your units could not be loaded.</Alert>;
  const byUnit = targets.data.units.length > 0;
  const rows = byUnit ? targets.data.units : targets.data.agencies;
  if (rows.length === 0)
    return (
      <Typography variant="body2" color="text.secondary">
        You are not assigned to an agency yet.
      </Typography>
    );
  const key = byUnit ? "units" : "agencies";
  return (
    <Stack spacing={1.5}>
      {rows.map((row) => (
        <ChoiceRow
          key={row.id}
          name={row.name}
          value={alarm.settings[key][row.id] ?? DEFAULT_NON_EMERGENCY_CHOICE}
          onChange={(choice) =>
            alarm.updateSettings({ ...alarm.settings, [key]: { ...alarm.settings[key], [row.id]: choice } })
          }
        />
      ))}
    </Stack>
  );
}

/**
 * The alarm's settings, from the user menu (issue 26): a mute for the next hours, how long an
 * emergency keeps the screen on, the sound of non-emergency pages per unit (or agency), and a test of
 * each sound. Settings belong to this device.
 */
export function AlarmSettingsDialog({
  open,
  onClose,
  alarm,
}: {
  open: boolean;
  onClose: () => void;
  alarm: AlarmControls;
}) {
  const [muteHours, setMuteHours] = useState<number>(MUTE_HOUR_CHOICES[0]);
  const { settings } = alarm;
  return (
    <MemberDialog open={open} title="Alarm" onClose={onClose}>
      <DialogContent dividers>
        <Stack spacing={3}>
          <Typography variant="body2">
            While Turnout is open, an emergency page of your feed sounds the alarm, vibrates and keeps the
            screen on. Other pages play a soft tone, the alarm or nothing, as you choose below. Pages your
            filters hide, administrative and machine pages never sound, and one job sounds once a minute at
            most. These settings are kept on this device.
          </Typography>

          <section aria-label="Mute">
            <Typography component="h3" variant="subtitle2" gutterBottom>
              Mute
            </Typography>
            {alarm.muted && settings.mutedUntil !== null ? (
              <Alert
                severity="warning"
                role="status"
                action={
                  <Button color="inherit" onClick={() => alarm.mute(0)}>
                    Unmute
                  </Button>
                }
              >
                {`Muted until ${formatDateTime(settings.mutedUntil)}. Emergency pages make no sound.`}
              </Alert>
            ) : (
              <Box sx={{ display: "flex", flexWrap: "wrap", gap: 1, alignItems: "center" }}>
                <TextField
                  select
                  size="small"
                  label="Mute for"
                  value={muteHours}
                  onChange={(event) => setMuteHours(Number(event.target.value))}
                  sx={{ minWidth: 140 }}
                >
                  {MUTE_HOUR_CHOICES.map((hours) => (
                    <MenuItem key={hours} value={hours}>
                      {hours === 1 ? "1 hour" : `${hours} hours`}
                    </MenuItem>
                  ))}
                </TextField>
                <Button variant="outlined" onClick={() => alarm.mute(muteHours)}>
                  Mute alarm
                </Button>
              </Box>
            )}
          </section>

          <section aria-label="Screen">
            <TextField
              select
              size="small"
              label="Keep the screen on after an emergency page"
              value={settings.wakeLockMinutes}
              onChange={(event) =>
                alarm.updateSettings({ ...settings, wakeLockMinutes: Number(event.target.value) })
              }
              fullWidth
            >
              {WAKE_LOCK_MINUTE_CHOICES.map((minutes) => (
                <MenuItem key={minutes} value={minutes}>
                  {minutesLabel(minutes)}
                </MenuItem>
              ))}
            </TextField>
          </section>

          <section aria-label="Non-emergency pages">
            <Typography component="h3" variant="subtitle2" gutterBottom>
              Non-emergency pages
            </Typography>
            <NonEmergencyChoices alarm={alarm} open={open} />
          </section>

          <section aria-label="Test">
            <Typography component="h3" variant="subtitle2" gutterBottom>
              Test
            </Typography>
            <Box sx={{ display: "flex", flexWrap: "wrap", gap: 1 }}>
              <Button variant="outlined" onClick={() => alarm.test("alarm")}>
                Play the alarm
              </Button>
              <Button variant="outlined" onClick={() => alarm.test("soft")}>
                Play the soft tone
              </Button>
              {alarm.player.sounding ? <Button onClick={alarm.silence}>Stop</Button> : null}
            </Box>
          </section>
        </Stack>
      </DialogContent>
    </MemberDialog>
  );
}
