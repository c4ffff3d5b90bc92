import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import TextField from "@mui/material/TextField";
import { durationText } from "@turnout/domain";
import { useId } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { errorText } from "../agencies/error-text";
import { DataTable } from "../data-view/data-table";
import { useNewReceiverKey, useRevokeReceiverKey } from "./queries";
import type { IssuedKey, Receiver, ReceiverKey } from "./receivers-api";

/** A new key leaves the receiver's other keys valid this long, so it can be switched without a gap. */
export const ROTATION_GRACE_HOURS = 24;

/** '12 s ago', or 'never'. */
export function ago(iso: string | null, now: number): string {
  return iso === null ? "never" : `${durationText(Math.max(0, now - Date.parse(iso)))} ago`;
}

function validity(k: ReceiverKey): string {
  if (k.revoked_at) return "Revoked";
  if (!k.valid) return "Expired";
  return k.expires_at ? `Until ${new Date(k.expires_at).toLocaleString()}` : "Yes";
}

/** The key, shown once after it is issued, to copy into the receiver's settings. */
export function IssuedKeyDialog({
  issued,
  onClose,
}: {
  issued: { name: string; key: IssuedKey } | null;
  onClose: () => void;
}) {
  const titleId = useId();
  return (
    <Dialog open={issued !== null} onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth>
      <DialogTitle id={titleId}>Key for {issued?.name}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Copy this key into the receiver's settings (TURNOUT_INGEST_KEY) now: it is shown only once.
        </DialogContentText>
        <TextField
          label="Ingest key"
          value={issued?.key.key ?? ""}
          fullWidth
          slotProps={{ input: { readOnly: true } }}
          onFocus={(event) => event.target.select()}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained">
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** A receiver's keys: a new one (the others stay valid for a day), and revoking one after asking. */
export function ReceiverKeysDialog({
  receiver,
  now,
  onClose,
  onIssued,
}: {
  receiver: Receiver | null;
  now: number;
  onClose: () => void;
  onIssued: (name: string, key: IssuedKey) => void;
}) {
  const titleId = useId();
  const newKey = useNewReceiverKey();
  const revoke = useRevokeReceiverKey();
  const confirm = useConfirmation();
  if (!receiver) return null;
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth>
      <DialogTitle id={titleId}>Keys of {receiver.name}</DialogTitle>
      <DialogContent>
        {newKey.error && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {errorText(newKey.error)}
          </Alert>
        )}
        <DialogContentText sx={{ mb: 1 }}>
          A new key leaves the others valid for {ROTATION_GRACE_HOURS} hours, so the receiver can be switched
          over without a gap.
        </DialogContentText>
        <DataTable
          label="Keys"
          rows={receiver.keys}
          rowKey={(k) => k.id}
          columns={[
            { header: "Key", cell: (k) => `${k.key_prefix}…`, sx: { fontFamily: "monospace" } },
            { header: "Last used", cell: (k) => ago(k.last_used_at, now) },
            { header: "Valid", cell: validity },
          ]}
          actionsAlign="right"
          actions={[
            {
              label: "Revoke",
              color: "error",
              ariaLabel: (k) => `Revoke key ${k.key_prefix}`,
              showIf: (k) => k.valid,
              onClick: (k) => {
                revoke.reset();
                confirm.ask({
                  title: `Revoke key ${k.key_prefix}…?`,
                  text: `${receiver.name} can no longer send with it, from now on.`,
                  confirmLabel: "Revoke",
                  onConfirm: () =>
                    revoke.mutate({ id: receiver.id, keyId: k.id }, { onSuccess: () => confirm.close() }),
                });
              },
            },
          ]}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="contained"
          disabled={newKey.isPending}
          onClick={() =>
            newKey.mutate(
              { id: receiver.id, graceHours: ROTATION_GRACE_HOURS },
              { onSuccess: (key) => onIssued(receiver.name, key) },
            )
          }
        >
          New key
        </Button>
      </DialogActions>
      {confirm.dialog({ busy: revoke.isPending, error: revoke.error ? errorText(revoke.error) : null })}
    </Dialog>
  );
}
