import DirectionsIcon from "@mui/icons-material/Directions";
import ShareIcon from "@mui/icons-material/Share";
import Alert from "@mui/material/Alert";
import Avatar from "@mui/material/Avatar";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import Snackbar from "@mui/material/Snackbar";
import { useTheme } from "@mui/material/styles";
import Typography from "@mui/material/Typography";
import useMediaQuery from "@mui/material/useMediaQuery";
import { useQuery } from "@tanstack/react-query";
import {
  CLIPBOARD_NOTICE_MS,
  displayText,
  formatDateTime,
  isIosSafari,
  MESSAGES,
  PAGER_CLOCK_SKEW_MS,
} from "@turnout/domain";
import { type ReactNode, useEffect, useId, useState } from "react";
import { type Alert as AlertData, alertTime } from "../../api/alerts";
import { isApiError } from "../../api/errors";
import { safeLogoPath } from "../../ui/safe-logo-path";
import { DialogTitleWithClose } from "./dialog-title-with-close";
import { jobQueryOptions } from "./queries";
import { shareAlert } from "./share";
import { TypeBadge } from "./type-badge";

/** The SPEC 8 text for a job that could not be loaded. */
export function jobErrorText(error: unknown): string {
  if (isApiError(error)) {
    if (error.status === 403) return error.serverMessage ?? MESSAGES.JOB_FORBIDDEN;
    if (error.status === 404) return MESSAGES.JOB_NOT_FOUND;
  }
  return MESSAGES.JOB_LOAD_FAILED;
}

/** Whether the server received the page well after it was paged (replayed from a receiver's spool). */
function receivedLate(alert: AlertData): boolean {
  if (!alert.received_at) return false;
  return Date.parse(alert.received_at) - Date.parse(alertTime(alert)) > PAGER_CLOCK_SKEW_MS;
}

/**
 * The job's chips (type, agency, area), between the title and the scrolling text: always in view,
 * however long the message or however small the screen.
 */
function JobChips({ alert }: { alert: AlertData }) {
  const logo = safeLogoPath(alert.agency_logo_path);
  return (
    <Box sx={{ display: "flex", flexWrap: "wrap", gap: 1, px: 3, pb: 1.5 }} data-job-chips="">
      <TypeBadge type={alert.type} />
      {alert.agency_name ? (
        <Chip
          variant="outlined"
          label={alert.agency_name}
          avatar={logo ? <Avatar src={logo} alt="" /> : undefined}
        />
      ) : null}
      {alert.area ? <Chip variant="outlined" label={alert.area} /> : null}
    </Box>
  );
}

function JobDetails({ alert }: { alert: AlertData }) {
  return (
    <>
      <Typography
        component="p"
        sx={{ fontSize: "1.15rem", lineHeight: 1.5, whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}
      >
        {displayText(alert.message)}
      </Typography>
      <Typography component="p" sx={{ mt: 2, color: "text.secondary" }}>
        Created <time dateTime={alertTime(alert)}>{formatDateTime(alertTime(alert))}</time>
        {receivedLate(alert) ? (
          <>
            {" "}
            (received <time dateTime={alert.received_at!}>{formatDateTime(alert.received_at!)}</time>)
          </>
        ) : null}
      </Typography>
      {alert.has_mappable_address && alert.primary_address ? (
        <Typography component="p" sx={{ mt: 0.5, color: "text.secondary" }}>
          Address: {alert.primary_address}
        </Typography>
      ) : null}
    </>
  );
}

/**
 * The job detail popup of `/?job={id}` (SPEC 2): type, agency and area, the text, when it was
 * created, directions when the address can be mapped, and share. Failures read as SPEC 8 says.
 * Full screen on a phone, its type chip under the title, outside the scrolling text, so it stays in
 * view (issue 26).
 */
export function JobDetailDialog({
  jobId,
  onClose,
  renderExtra,
}: {
  jobId: string | null;
  onClose: () => void;
  /** What another feature adds under a loaded job's details (e.g. who is responding). */
  renderExtra?: (alert: AlertData) => ReactNode;
}) {
  const titleId = useId();
  const theme = useTheme();
  const fullScreen = useMediaQuery(theme.breakpoints.down("sm"));
  const job = useQuery({ ...jobQueryOptions(jobId ?? ""), enabled: jobId !== null });
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (notice === null) return;
    const timer = window.setTimeout(() => setNotice(null), CLIPBOARD_NOTICE_MS);
    return () => window.clearTimeout(timer);
  }, [notice]);

  const alert = jobId !== null ? job.data : undefined;
  const failed = jobId !== null && job.isError;
  const sameWindow = isIosSafari(navigator.userAgent);
  const directions = alert?.has_mappable_address && alert.directions_url ? alert.directions_url : null;

  const handleShare = async () => {
    if (!alert) return;
    const outcome = await shareAlert(alert);
    if (outcome === "copied") setNotice(MESSAGES.CLIPBOARD_COPIED);
    if (outcome === "failed") setNotice("Could not share or copy this alert.");
  };

  return (
    <>
      <Dialog
        open={jobId !== null}
        onClose={onClose}
        aria-labelledby={titleId}
        fullWidth
        maxWidth="sm"
        fullScreen={fullScreen}
        scroll="paper"
      >
        <DialogTitleWithClose id={titleId} onClose={onClose}>
          {failed ? MESSAGES.JOB_LOAD_TITLE : `Job #${jobId ?? ""}`}
        </DialogTitleWithClose>
        {alert && !failed ? <JobChips alert={alert} /> : null}
        <DialogContent dividers>
          {failed ? (
            <Alert severity="error">{jobErrorText(job.error)}</Alert>
          ) : alert ? (
            <>
              <JobDetails alert={alert} />
              {renderExtra?.(alert)}
            </>
          ) : (
            <Box role="status" sx={{ display: "flex", alignItems: "center", gap: 1.5, py: 2 }}>
              <CircularProgress size={24} aria-hidden="true" />
              <Typography>Loading message…</Typography>
            </Box>
          )}
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 2, flexWrap: "wrap", gap: 1 }}>
          {directions ? (
            <Button
              variant="contained"
              color="secondary"
              startIcon={<DirectionsIcon aria-hidden="true" />}
              href={directions}
              {...(sameWindow ? {} : { target: "_blank", rel: "noopener noreferrer" })}
            >
              Directions
            </Button>
          ) : null}
          {alert ? (
            <Button variant="outlined" startIcon={<ShareIcon aria-hidden="true" />} onClick={handleShare}>
              Share
            </Button>
          ) : null}
          <Button onClick={onClose}>Close</Button>
        </DialogActions>
      </Dialog>
      <Snackbar
        open={notice !== null}
        anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
        message={notice ?? ""}
        slotProps={{ content: { role: "status" } }}
      />
    </>
  );
}
