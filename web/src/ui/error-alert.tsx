import { errorTypeColor } from "@turnout/domain";
import { closePath, Icon } from "./kit/icons";
import { IconButton, Notice, type Severity } from "./kit/kit";

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

/** The severity for an error type: rate_limited red, account_not_activated blue, user_not_found yellow. */
export function severityForErrorType(errorType: string | undefined): Severity {
  return errorTypeColor(errorType);
}

/**
 * An error message coloured by its type, with an icon and a title that say the same in words. Plain
 * elements (the kit's Notice, filled), so the sign-in screen paints without MUI (issue 31).
 */
export function ErrorAlert({ notice, onClose }: { notice: ErrorNotice | null; onClose?: () => void }) {
  if (!notice) return null;
  const severity = severityForErrorType(notice.errorType);
  const title = (notice.errorType && TITLE_BY_TYPE[notice.errorType]) || "Something went wrong";
  return (
    <Notice
      severity={severity}
      variant="filled"
      title={title}
      data-error-type={notice.errorType}
      action={
        onClose ? (
          <IconButton color="inherit" aria-label="Dismiss message" onClick={onClose}>
            <Icon path={closePath} fontSize="small" />
          </IconButton>
        ) : undefined
      }
    >
      {notice.message}
    </Notice>
  );
}
