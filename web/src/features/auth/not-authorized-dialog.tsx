import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";

/** The general 403 dialog (SPEC 8); screens that explain a 403 themselves opt out in the client. */
export function NotAuthorizedDialog({
  message,
  onGoToLogin,
  onClose,
}: {
  message: string | null;
  onGoToLogin: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={message !== null}
      onClose={onClose}
      aria-labelledby="not-authorized-title"
      aria-describedby="not-authorized-text"
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id="not-authorized-title">Not Authorized</DialogTitle>
      <DialogContent>
        <DialogContentText id="not-authorized-text">{message}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" onClick={onGoToLogin} autoFocus>
          Go to Login
        </Button>
      </DialogActions>
    </Dialog>
  );
}
