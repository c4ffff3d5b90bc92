import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatDateTime } from "@turnout/domain";
import { useId, useState } from "react";
import { isApiError } from "../../api/errors";
import { devicesApi, type RecognisedDevice } from "./devices-api";

const devicesKey = ["auth", "devices"] as const;

const failureText = (error: unknown, fallback: string) =>
  isApiError(error) && error.serverMessage ? error.serverMessage : fallback;

/**
 * 'My devices' (issue 27): the devices that have signed in as the member. Each has its own sign-in
 * allowance that strangers cannot use up, and codes of its own they cannot void; removing one (lost,
 * sold, a shared tablet) makes it sign in as a new device next time.
 */
export function MyDevicesDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const devices = useQuery({
    queryKey: devicesKey,
    queryFn: ({ signal }) => devicesApi.list(signal),
    enabled: open,
  });
  const [confirming, setConfirming] = useState<RecognisedDevice | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (device: RecognisedDevice) => devicesApi.revoke(device.id),
    onSuccess: (message) => {
      setNotice(message);
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: devicesKey });
    },
  });

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>My devices</DialogTitle>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          Devices that have signed in as you get in first, even while someone else keeps asking for codes for
          your number. Remove one you no longer use: it then signs in as a new device.
        </Typography>
        {devices.isPending ? (
          <CircularProgress size={24} aria-label="Loading devices" />
        ) : devices.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void devices.refetch()}>
                Retry
              </Button>
            }
          >
            {failureText(devices.error, "Could not load your devices.")}
          </Alert>
        ) : devices.data.length === 0 ? (
          <Typography>No device is recognised yet: the next one you sign in on will be.</Typography>
        ) : (
          <List aria-label="Recognised devices">
            {devices.data.map((device) => (
              <ListItem
                key={device.id}
                divider
                secondaryAction={
                  <Button
                    size="small"
                    onClick={() => setConfirming(device)}
                    aria-label={`Remove ${device.device_info}`}
                  >
                    Remove
                  </Button>
                }
              >
                <ListItemText
                  primary={device.device_info}
                  secondary={`Last used ${formatDateTime(device.last_used_at)} · first signed in ${formatDateTime(device.created_at)}`}
                />
              </ListItem>
            ))}
          </List>
        )}
        {confirming ? (
          <Alert
            severity="warning"
            sx={{ mt: 2 }}
            action={
              <>
                <Button color="inherit" size="small" onClick={() => setConfirming(null)}>
                  Keep
                </Button>
                <Button
                  color="inherit"
                  size="small"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate(confirming)}
                >
                  Remove
                </Button>
              </>
            }
          >
            {`Remove ${confirming.device_info}? It stays signed in until it signs out, then signs in as a new device.`}
          </Alert>
        ) : null}
        {revoke.isError ? (
          <Alert severity="error" role="alert" sx={{ mt: 2 }}>
            {failureText(revoke.error, "Could not remove the device. Please try again.")}
          </Alert>
        ) : null}
        {notice ? (
          <Alert severity="success" role="status" sx={{ mt: 2 }} onClose={() => setNotice(null)}>
            {notice}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
