import Alert from "@mui/material/Alert";
import Snackbar from "@mui/material/Snackbar";
import { TOAST_MS } from "@turnout/domain";
import { useCallback, useState } from "react";

type Notice = { id: number; message: string; error: boolean };

/**
 * A short success or error message at the bottom of the screen, gone after TOAST_MS (SPEC 9: toasts
 * close after 4 s). `show` puts up a new one (replacing any shown); render `toast` once.
 */
export function useNoticeToast() {
  const [notice, setNotice] = useState<Notice | null>(null);
  const show = useCallback(
    (message: string, error = false) => setNotice({ id: Date.now(), message, error }),
    [],
  );
  const close = () => setNotice(null);
  const toast = (
    <Snackbar
      key={notice?.id}
      open={notice !== null}
      autoHideDuration={TOAST_MS}
      onClose={close}
      anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
    >
      <Alert severity={notice?.error ? "error" : "success"} variant="filled" onClose={close}>
        {notice?.message}
      </Alert>
    </Snackbar>
  );
  return { show, toast };
}
