import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import Divider from "@mui/material/Divider";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { displayText, formatDateTime } from "@turnout/domain";
import { Fragment, useId } from "react";
import { alertTime } from "../../api/alerts";
import type { AlertGroup } from "./alerts-api";
import { DialogTitleWithClose } from "./dialog-title-with-close";
import { groupQueryOptions } from "./queries";
import { TypeBadge } from "./type-badge";

/**
 * The grouped-alert dialog (SPEC 2): every message of one job, oldest first, and 'Close'. It opens
 * with the messages the card has and refreshes them from the server (a job can grow while open).
 */
export function GroupedAlertDialog({
  group,
  onClose,
  onOpenMessage,
}: {
  group: AlertGroup | null;
  onClose: () => void;
  onOpenMessage: (alertId: number) => void;
}) {
  const titleId = useId();
  const primaryId = group?.primary_message.id ?? 0;
  const fresh = useQuery({ ...groupQueryOptions(primaryId), enabled: group !== null });
  const shown = (group && fresh.data && fresh.data.group_id === group.group_id ? fresh.data : group) ?? null;
  const messages = shown ? [...shown.messages].sort((a, b) => a.id - b.id) : [];

  return (
    <Dialog open={group !== null} onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitleWithClose id={titleId} onClose={onClose}>
        {shown?.job_number ? `Job ${shown.job_number}` : "Job messages"}
      </DialogTitleWithClose>
      <DialogContent dividers>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {messages.length} messages, oldest first
        </Typography>
        <Box component="ol" aria-label="Messages, oldest first" sx={{ listStyle: "none", p: 0, m: 0 }}>
          {messages.map((message, index) => (
            <Fragment key={message.id}>
              {index > 0 ? <Divider component="li" aria-hidden="true" /> : null}
              <Box component="li" sx={{ py: 1.5 }}>
                <Box sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mb: 1 }}>
                  <TypeBadge type={message.type} size="small" />
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    <time dateTime={alertTime(message)}>{formatDateTime(alertTime(message))}</time>
                  </Typography>
                  {message.agency_name ? (
                    <Typography variant="body2" color="text.secondary">
                      {message.agency_name}
                    </Typography>
                  ) : null}
                </Box>
                <Typography component="p" sx={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                  {displayText(message.message)}
                </Typography>
                <Button
                  size="small"
                  onClick={() => onOpenMessage(message.id)}
                  aria-label={`Details of job ${message.id}`}
                  sx={{ mt: 0.5, ml: -1 }}
                >
                  Details
                </Button>
              </Box>
            </Fragment>
          ))}
        </Box>
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button variant="contained" onClick={onClose}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
