import LockClockIcon from "@mui/icons-material/LockClock";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import { minutesWording } from "@turnout/domain";

/** The too-many-attempts modal (SPEC 2): how long to wait, and why. */
export function SecurityLockDialog({ minutes, onClose }: { minutes: number | null; onClose: () => void }) {
  return (
    <Dialog
      open={minutes !== null}
      onClose={onClose}
      aria-labelledby="security-lock-title"
      aria-describedby="security-lock-text"
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id="security-lock-title" sx={{ display: "flex", alignItems: "center", gap: 1 }}>
        <LockClockIcon color="error" aria-hidden="true" />
        Account Temporarily Locked
      </DialogTitle>
      <DialogContent>
        <DialogContentText id="security-lock-text">
          Sign-in is locked because of multiple failed login attempts. Please wait{" "}
          <strong>{minutesWording(minutes ?? 0)}</strong> before trying again, or contact your administrator.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onClose} autoFocus>
          I Understand
        </Button>
      </DialogActions>
    </Dialog>
  );
}
