import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import { useId, useRef } from "react";

/** What a confirmation asks: a title, the consequence in words, and the button that does it. */
export interface Confirmation {
  title: string;
  text: string;
  confirmLabel: string;
  /** Red for what cannot be undone or cuts someone off. */
  destructive?: boolean;
  onConfirm: () => void;
}

/**
 * Asks before a step that signs someone out, removes or resets something. Cancel has the focus,
 * so Enter alone never does the damage.
 */
export function ConfirmDialog({
  confirmation,
  busy = false,
  onCancel,
}: {
  confirmation: Confirmation | null;
  busy?: boolean;
  onCancel: () => void;
}) {
  const titleId = useId();
  const textId = useId();
  // Keep the words on screen while the dialog fades out.
  const shown = useRef<Confirmation | null>(null);
  if (confirmation) shown.current = confirmation;
  const current = shown.current;
  return (
    <Dialog
      open={confirmation !== null}
      onClose={onCancel}
      aria-labelledby={titleId}
      aria-describedby={textId}
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id={titleId}>{current?.title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={textId}>{current?.text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button
          variant="contained"
          color={current?.destructive ? "error" : "primary"}
          disabled={busy}
          onClick={() => confirmation?.onConfirm()}
        >
          {current?.confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
