import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import { useId } from "react";

/**
 * Asks before a destructive or far-reaching action. Cancel has the focus, so Enter never confirms by
 * accident; the confirm button is disabled while `busy`; a refusal (`error`) is shown inside it.
 */
export function ConfirmDialog({
  open,
  title,
  text,
  confirmLabel,
  busy = false,
  error = null,
  destructive = true,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  title: string;
  text: string;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  /** Red for what cannot be undone or cuts someone off (the default). */
  destructive?: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const id = useId();
  return (
    <Dialog
      open={open}
      onClose={onCancel}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id={`${id}-title`}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={`${id}-text`}>{text}</DialogContentText>
        {error ? (
          <Alert severity="error" role="alert" sx={{ mt: 2 }}>
            {error}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button
          color={destructive ? "error" : "primary"}
          variant="contained"
          onClick={onConfirm}
          disabled={busy}
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
