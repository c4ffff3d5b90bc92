import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Snackbar from "@mui/material/Snackbar";
import { TOAST_MS } from "@turnout/domain";

/** One error to show; `id` restarts the 4 s timer when the same text comes twice. */
export interface ErrorPopupNotice {
  id: number;
  message: string;
}

/** The Error popup of SPEC 8: the message under the title 'Error', hidden after 4 s (TOAST_MS). */
export function ErrorPopup({ notice, onClose }: { notice: ErrorPopupNotice | null; onClose: () => void }) {
  return (
    <Snackbar
      key={notice?.id}
      open={notice !== null}
      autoHideDuration={TOAST_MS}
      onClose={(_event, reason) => {
        // A tap elsewhere should not cut the 4 s short.
        if (reason !== "clickaway") onClose();
      }}
      anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
    >
      <Alert
        severity="error"
        variant="filled"
        role="alert"
        onClose={onClose}
        slotProps={{ closeButton: { "aria-label": "Dismiss error" } as object }}
        sx={{ width: "100%" }}
      >
        <AlertTitle>Error</AlertTitle>
        {notice?.message}
      </Alert>
    </Snackbar>
  );
}
