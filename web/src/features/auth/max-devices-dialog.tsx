import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Radio from "@mui/material/Radio";
import RadioGroup from "@mui/material/RadioGroup";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { formatDateTime, formatRelativeTime } from "@turnout/domain";
import { useEffect, useState } from "react";
import type { DeviceSession } from "./auth-api";

function when(value: string | null, relative: boolean): string {
  if (!value) return "unknown";
  const text = relative ? formatRelativeTime(value, Date.now()) : formatDateTime(value);
  return text || "unknown";
}

/**
 * The maximum-devices dialog (SPEC 2): the user's active sessions; one is chosen and signed out
 * so this device can sign in.
 */
export function MaxDevicesDialog({
  open,
  sessions,
  maxSessions,
  busy,
  error,
  onCancel,
  onContinue,
}: {
  open: boolean;
  sessions: DeviceSession[];
  maxSessions: number;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onContinue: (sessionId: DeviceSession["id"]) => void;
}) {
  const [selected, setSelected] = useState<string>("");

  useEffect(() => {
    if (open) setSelected("");
  }, [open]);

  const chosen = sessions.find((session) => String(session.id) === selected);

  return (
    <Dialog open={open} onClose={busy ? undefined : onCancel} aria-labelledby="max-devices-title" fullWidth>
      <DialogTitle id="max-devices-title">Maximum Devices Reached</DialogTitle>
      <DialogContent>
        <DialogContentText id="max-devices-text" sx={{ mb: 2 }}>
          You are already signed in on {maxSessions} {maxSessions === 1 ? "device" : "devices"}, the most
          allowed. Choose a device to sign out so you can continue on this one.
        </DialogContentText>
        <RadioGroup
          aria-labelledby="max-devices-title"
          aria-describedby="max-devices-text"
          value={selected}
          onChange={(event) => setSelected(event.target.value)}
        >
          <Stack spacing={1}>
            {sessions.map((session) => (
              <Paper
                key={String(session.id)}
                variant="outlined"
                sx={{
                  px: 1.5,
                  py: 1,
                  borderColor: selected === String(session.id) ? "primary.main" : undefined,
                  borderWidth: selected === String(session.id) ? 2 : 1,
                }}
              >
                <FormControlLabel
                  value={String(session.id)}
                  control={<Radio />}
                  sx={{ alignItems: "flex-start", m: 0, width: "100%" }}
                  label={
                    <Stack sx={{ py: 1 }}>
                      <Typography sx={{ fontWeight: 600 }}>
                        {session.device_info || "Unknown device"}
                      </Typography>
                      <Typography variant="body2" color="text.secondary">
                        Last active: {when(session.last_activity, true)}
                      </Typography>
                      <Typography variant="body2" color="text.secondary">
                        IP address: {session.ip_address || "unknown"}
                      </Typography>
                      <Typography variant="body2" color="text.secondary">
                        Logged in: {when(session.created_at, false)}
                      </Typography>
                    </Stack>
                  }
                />
              </Paper>
            ))}
          </Stack>
        </RadioGroup>
        {error ? (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1 }}>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button
          variant="contained"
          disabled={!chosen || busy}
          onClick={() => {
            if (chosen) onContinue(chosen.id);
          }}
        >
          Logout Selected Device &amp; Continue
        </Button>
      </DialogActions>
    </Dialog>
  );
}
