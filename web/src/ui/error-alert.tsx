import Alert, { type AlertColor } from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import { errorTypeColor } from "@turnout/domain";

/** What an error shows: its text and, when the server said, its type (SPEC 8 colours). */
export interface ErrorNotice {
  message: string;
  errorType?: string | undefined;
}

/** A title per error type, so the colour is never the only signal of what went wrong. */
const TITLE_BY_TYPE: Record<string, string> = {
  rate_limited: "Too many attempts",
  account_not_activated: "Account not verified",
  user_not_found: "Account not found",
  network_error: "Connection problem",
  invalid_code: "Incorrect code",
  code_expired: "Code expired",
  account_inactive: "Account deactivated",
  session_limit: "Too many devices",
  validation_error: "Check what you entered",
  service_unavailable: "Service unavailable",
  forbidden: "Not allowed",
};

/** The MUI severity for an error type: rate_limited red, account_not_activated blue, user_not_found yellow. */
export function severityForErrorType(errorType: string | undefined): AlertColor {
  return errorTypeColor(errorType);
}

/** An error message coloured by its type, with an icon and a title that say the same in words. */
export function ErrorAlert({ notice, onClose }: { notice: ErrorNotice | null; onClose?: () => void }) {
  if (!notice) return null;
  const severity = severityForErrorType(notice.errorType);
  const title = (notice.errorType && TITLE_BY_TYPE[notice.errorType]) || "Something went wrong";
  return (
    <Alert
      severity={severity}
      variant="filled"
      onClose={onClose}
      data-error-type={notice.errorType}
      slotProps={{ closeButton: { "aria-label": "Dismiss message" } as object }}
    >
      <AlertTitle>{title}</AlertTitle>
      {notice.message}
    </Alert>
  );
}
