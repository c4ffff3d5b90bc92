import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import DialogContent from "@mui/material/DialogContent";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormLabel from "@mui/material/FormLabel";
import Radio from "@mui/material/Radio";
import RadioGroup from "@mui/material/RadioGroup";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { MemberDialog } from "../../ui/member-dialog";
import type { AgencyChoice } from "./push-api";
import { notificationPermission, PushPermissionError, PushServiceError, pushSupport } from "./push-device";
import { useDevicePush, usePushPreferences, useSetAgencyChoice, useTestPush } from "./queries";

function messageOf(error: unknown): string {
  if (error instanceof PushPermissionError || error instanceof PushServiceError) return error.message;
  if (error instanceof DOMException) return new PushServiceError().message;
  return error instanceof Error && error.message ? error.message : "Push notifications could not be changed.";
}

function PushSettings({ open }: { open: boolean }) {
  const support = pushSupport();
  const preferences = usePushPreferences(open && support === "supported");
  const device = useDevicePush();
  const agencyChoice = useSetAgencyChoice();
  const test = useTestPush();
  const [tested, setTested] = useState(false);
  const permission = notificationPermission();

  if (support === "needs-install") {
    return (
      <Alert severity="info">
        On an iPhone or iPad, push notifications work in the installed app: tap Share, then 'Add to Home
        Screen', open Turnout from the Home Screen and turn push on there.
      </Alert>
    );
  }
  if (support === "unsupported") {
    return (
      <Alert severity="warning">This browser cannot show push notifications. SMS alerts still work.</Alert>
    );
  }
  if (preferences.isPending) return <CircularProgress aria-label="Loading push settings" />;
  if (preferences.isError) return <Alert severity="error">{messageOf(preferences.error)}</Alert>;

  const on = preferences.data.device_subscribed && permission === "granted";
  const busy = device.isPending;
  return (
    <Stack spacing={2}>
      <FormControlLabel
        control={
          <Switch
            checked={on}
            disabled={busy}
            onChange={(_event, checked) => {
              setTested(false);
              device.mutate(checked);
            }}
          />
        }
        label={busy ? "Push notifications on this device (saving…)" : "Push notifications on this device"}
      />
      {permission === "denied" && !on ? (
        <Alert severity="warning">
          Notifications are blocked for this site. Allow them in your browser's site settings (the padlock or
          settings icon beside the address), then turn push on here.
        </Alert>
      ) : null}
      {device.isError ? <Alert severity="error">{messageOf(device.error)}</Alert> : null}
      <div>
        <Typography component="h3" variant="subtitle2" gutterBottom>
          Emergency alerts by push
        </Typography>
        {preferences.data.agencies.length === 0 ? (
          <Typography variant="body2" color="text.secondary">
            You are not assigned to an agency yet.
          </Typography>
        ) : (
          preferences.data.agencies.map((agency) =>
            agency.units.length > 0 ? (
              // A member of units (issue 26): their units' emergencies by default, or the whole agency's.
              <FormControl key={agency.agency_id} component="fieldset" sx={{ display: "flex", mb: 1 }}>
                <FormLabel component="legend">{agency.agency_name}</FormLabel>
                <RadioGroup
                  value={agency.mode}
                  onChange={(_event, mode) =>
                    agencyChoice.mutate({ agency_id: agency.agency_id, mode: mode as AgencyChoice["mode"] })
                  }
                >
                  <FormControlLabel
                    value="units"
                    disabled={agencyChoice.isPending}
                    control={<Radio />}
                    label={`Emergencies for my units (${agency.units.map((u) => u.name).join(", ")})`}
                  />
                  <FormControlLabel
                    value="emergency"
                    disabled={agencyChoice.isPending}
                    control={<Radio />}
                    label={`Every emergency alert from ${agency.agency_name}`}
                  />
                  <FormControlLabel
                    value="none"
                    disabled={agencyChoice.isPending}
                    control={<Radio />}
                    label="None"
                  />
                </RadioGroup>
              </FormControl>
            ) : (
              <FormControlLabel
                key={agency.agency_id}
                sx={{ display: "flex" }}
                control={
                  <Switch
                    checked={agency.mode === "emergency"}
                    disabled={agencyChoice.isPending}
                    onChange={(_event, checked) =>
                      agencyChoice.mutate({
                        agency_id: agency.agency_id,
                        mode: checked ? "emergency" : "none",
                      })
                    }
                  />
                }
                label={`Every emergency alert from ${agency.agency_name}`}
              />
            ),
          )
        )}
        {agencyChoice.isError ? <Alert severity="error">{messageOf(agencyChoice.error)}</Alert> : null}
      </div>
      <Typography variant="body2" color="text.secondary">
        Keyword rules in My Alerts can push too: choose 'SMS and push' or 'Push only' on a rule.
      </Typography>
      <div>
        <Button
          variant="outlined"
          disabled={!on || test.isPending}
          onClick={() => test.mutate(undefined, { onSuccess: () => setTested(true) })}
        >
          Send a test notification
        </Button>
        {tested ? (
          <Typography role="status" variant="body2" sx={{ mt: 1 }}>
            Test sent: it should arrive on this device within a few seconds.
          </Typography>
        ) : null}
        {test.isError ? <Alert severity="error">{messageOf(test.error)}</Alert> : null}
      </div>
    </Stack>
  );
}

/**
 * Push notifications (issue 15), from the user menu: what push does, and a switch for this device that
 * asks the browser's permission only when the member turns it on; their choice per agency; a test.
 */
export function PushDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <MemberDialog open={open} title="Push notifications" onClose={onClose}>
      <DialogContent dividers>
        <Stack spacing={2}>
          <Typography variant="body2">
            Get a notification on this device the moment your pager goes off, even when Turnout is closed.
            Tapping it opens the job. Push uses no SMS. It is set per device: turn it on on each phone or
            computer that should ring.
          </Typography>
          <PushSettings open={open} />
        </Stack>
      </DialogContent>
    </MemberDialog>
  );
}
