import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";

/** 'Account Already Exists': the phone is taken; try another number or sign in. */
export function AccountExistsDialog({
  open,
  onUseDifferentNumber,
  onGoToLogin,
}: {
  open: boolean;
  onUseDifferentNumber: () => void;
  onGoToLogin: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onUseDifferentNumber}
      aria-labelledby="account-exists-title"
      aria-describedby="account-exists-text"
    >
      <DialogTitle id="account-exists-title">Account Already Exists</DialogTitle>
      <DialogContent>
        <DialogContentText id="account-exists-text">
          An account with this phone number already exists. Sign in with it, or use a different number.
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1 }}>
        <Button onClick={onUseDifferentNumber}>Use Different Number</Button>
        <Button variant="contained" onClick={onGoToLogin} autoFocus>
          Go to Login
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** 'Account Needs Verification': the account exists unverified; the Login page sends a new code. */
export function AccountNeedsVerificationDialog({
  open,
  onGoToLogin,
  onClose,
}: {
  open: boolean;
  onGoToLogin: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      aria-labelledby="needs-verification-title"
      aria-describedby="needs-verification-text"
    >
      <DialogTitle id="needs-verification-title">Account Needs Verification</DialogTitle>
      <DialogContent>
        <DialogContentText id="needs-verification-text">
          An account with this phone number exists but has not been verified yet. Please use the Login page: a
          new verification code will be sent to your phone automatically.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onGoToLogin} autoFocus>
          Go to Login Page
        </Button>
      </DialogActions>
    </Dialog>
  );
}
