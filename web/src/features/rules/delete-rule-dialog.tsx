import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import { useRef } from "react";
import type { AlertRule } from "./rules-api";

/** Delete needs confirmation (SPEC 4). The caller decides where focus goes afterwards. */
export function DeleteRuleDialog({
  rule,
  onCancel,
  onConfirm,
}: {
  rule: AlertRule | null;
  onCancel: () => void;
  onConfirm: (rule: AlertRule) => void;
}) {
  // Keep the name on screen while the dialog fades out.
  const shown = useRef<AlertRule | null>(null);
  if (rule) shown.current = rule;
  return (
    <Dialog
      open={rule !== null}
      onClose={onCancel}
      aria-labelledby="delete-rule-title"
      aria-describedby="delete-rule-text"
      disableRestoreFocus
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id="delete-rule-title">Delete Alert</DialogTitle>
      <DialogContent>
        <DialogContentText id="delete-rule-text">
          Delete the alert “{shown.current?.name}”? You will no longer get an SMS for it. This cannot be
          undone.
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1 }}>
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={() => {
            if (rule) onConfirm(rule);
          }}
        >
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
