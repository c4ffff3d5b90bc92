import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import { SESSION_ENDED_REDIRECT_MS } from "@turnout/domain";
import { useEffect, useRef, useState } from "react";
import type { SessionNotice } from "../../api/session-events";

/**
 * 'Session Ended' (SPEC 4): cannot be dismissed; 'Go to Login' or, after 5 s by itself, the
 * session is cleared and the app goes to /login.
 */
export function SessionEndedDialog({
  notice,
  onGoToLogin,
}: {
  notice: SessionNotice | null;
  onGoToLogin: () => void;
}) {
  const open = notice !== null;
  const [secondsLeft, setSecondsLeft] = useState(Math.ceil(SESSION_ENDED_REDIRECT_MS / 1000));
  const goToLogin = useRef(onGoToLogin);
  goToLogin.current = onGoToLogin;

  useEffect(() => {
    if (!open) return;
    const startedAt = Date.now();
    setSecondsLeft(Math.ceil(SESSION_ENDED_REDIRECT_MS / 1000));
    const tick = window.setInterval(() => {
      const left = Math.max(0, Math.ceil((SESSION_ENDED_REDIRECT_MS - (Date.now() - startedAt)) / 1000));
      setSecondsLeft(left);
    }, 1000);
    const redirect = window.setTimeout(() => goToLogin.current(), SESSION_ENDED_REDIRECT_MS);
    return () => {
      window.clearInterval(tick);
      window.clearTimeout(redirect);
    };
  }, [open]);

  return (
    <Dialog
      open={open}
      aria-labelledby="session-ended-title"
      aria-describedby="session-ended-text"
      slotProps={{ paper: { role: "alertdialog" } }}
    >
      <DialogTitle id="session-ended-title">Session Ended</DialogTitle>
      <DialogContent>
        <DialogContentText id="session-ended-text">{notice?.message}</DialogContentText>
        <DialogContentText sx={{ mt: 1 }} aria-live="polite">
          Going to the login page in {secondsLeft} {secondsLeft === 1 ? "second" : "seconds"}.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onGoToLogin} autoFocus>
          Go to Login
        </Button>
      </DialogActions>
    </Dialog>
  );
}
