import VerifiedIcon from "@mui/icons-material/Verified";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import {
  ACTIVATION_CODE_EXPIRY_MINUTES,
  ACTIVATION_REDIRECT_MS,
  canSubmitActivationCode,
  MESSAGES,
} from "@turnout/domain";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ErrorAlert, type ErrorNotice } from "../../ui/error-alert";
import { authApi } from "./auth-api";
import { AUTH_SUBTITLE_ID, AuthLayout } from "./auth-layout";
import { CodeField } from "./code-field";
import { authErrorNotice } from "./error-notice";

/** 'Account Verified!': explains what happens next, then goes to login after 8 s. */
function AccountVerifiedDialog({
  open,
  phone,
  onGoToLogin,
}: {
  open: boolean;
  phone: string;
  onGoToLogin: () => void;
}) {
  const goToLogin = useRef(onGoToLogin);
  goToLogin.current = onGoToLogin;

  useEffect(() => {
    if (!open) return;
    const timer = window.setTimeout(() => goToLogin.current(), ACTIVATION_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [open]);

  return (
    <Dialog open={open} aria-labelledby="verified-title" aria-describedby="verified-text">
      <DialogTitle id="verified-title" sx={{ display: "flex", alignItems: "center", gap: 1 }}>
        <VerifiedIcon color="success" aria-hidden="true" />
        Account Verified!
      </DialogTitle>
      <DialogContent>
        <Stack spacing={1.5} id="verified-text">
          <DialogContentText>Your phone number has been verified.</DialogContentText>
          <DialogContentText>
            Most accounts are activated automatically within seconds. Sometimes an administrator reviews a new
            account first.
          </DialogContentText>
          <DialogContentText>
            We will send an SMS to {phone} when your account is ready to use.
          </DialogContentText>
          <DialogContentText variant="body2">
            Taking you to the login page in {Math.round(ACTIVATION_REDIRECT_MS / 1000)} seconds.
          </DialogContentText>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onGoToLogin} autoFocus>
          Go to Login Now
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** 'Verify Your Account' (SPEC 2): the 6-digit activation code sent by SMS. */
export function ActivationScreen({ phone, onBackToLogin }: { phone: string; onBackToLogin: () => void }) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorNotice | null>(null);
  const [verified, setVerified] = useState(false);

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!canSubmitActivationCode(code) || busy) return;
    setError(null);
    setBusy(true);
    try {
      const reply = await authApi.activate(phone, code);
      if (reply.success === false) {
        setError({ message: reply.message || MESSAGES.ACTIVATION_FAILED });
      } else {
        setVerified(true);
      }
    } catch (caught) {
      setError(authErrorNotice(caught, MESSAGES.ACTIVATION_FAILED));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthLayout title="Verify Your Account" subtitle={`Enter the 6-digit activation code sent to ${phone}.`}>
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate aria-label="Verify your account">
        <ErrorAlert notice={error} onClose={() => setError(null)} />
        <CodeField
          label="Activation code"
          value={code}
          onChange={setCode}
          disabled={busy || verified}
          helperText={`Code expires in ${ACTIVATION_CODE_EXPIRY_MINUTES} minutes`}
          describedBy={AUTH_SUBTITLE_ID}
          autoFocus
        />
        <Button
          type="submit"
          variant="contained"
          size="large"
          disabled={!canSubmitActivationCode(code) || busy || verified}
        >
          Verify Account
        </Button>
        <Button onClick={onBackToLogin} disabled={busy}>
          Back to Login
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ textAlign: "center" }}>
          Didn't receive the code? Check your messages
        </Typography>
      </Stack>
      <AccountVerifiedDialog open={verified} phone={phone} onGoToLogin={onBackToLogin} />
    </AuthLayout>
  );
}
