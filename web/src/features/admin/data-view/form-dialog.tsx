import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button, { type ButtonProps } from "@mui/material/Button";
import Dialog, { type DialogProps } from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import { type FormEvent, type ReactNode, useId } from "react";

/**
 * An admin form in a dialog: the title names it, a refusal from the server shows above the fields,
 * Cancel closes it and the submit button (disabled while `busy`) sends it; Enter in a field submits.
 */
export function FormDialog({
  open,
  title,
  error = null,
  submitLabel = "Save",
  submitColor = "primary",
  busy = false,
  maxWidth = "sm",
  onSubmit,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  error?: string | null;
  submitLabel?: string;
  submitColor?: ButtonProps["color"];
  busy?: boolean;
  maxWidth?: DialogProps["maxWidth"];
  onSubmit: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  const titleId = useId();
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth={maxWidth} fullWidth>
      <Box component="form" noValidate onSubmit={handleSubmit}>
        <DialogTitle id={titleId}>{title}</DialogTitle>
        <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2, pt: "8px !important" }}>
          {error ? (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          ) : null}
          {children}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" color={submitColor} disabled={busy}>
            {submitLabel}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
