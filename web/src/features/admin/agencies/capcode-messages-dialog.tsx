import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { displayText, formatDateTime, normalizeAlertType, typePresentation } from "@turnout/domain";
import { type ReactNode, useId } from "react";
import { errorText } from "./error-text";
import { capcodeMessagesQueryOptions } from "./queries";

/** The capcode whose messages to show. */
export interface MessagesTarget {
  id: number;
  capcode: string;
}

/** A capcode's recent messages, newest first: what the pager said, so an admin can tell whose it is. */
export function CapcodeMessagesDialog({
  target,
  onClose,
}: {
  target: MessagesTarget | null;
  onClose: () => void;
}) {
  const titleId = useId();
  const messages = useQuery({ ...capcodeMessagesQueryOptions(target?.id ?? 0), enabled: target !== null });

  let content: ReactNode;
  if (messages.isError) {
    content = <Alert severity="error">{errorText(messages.error)}</Alert>;
  } else if (!messages.data) {
    content = <CircularProgress size={24} aria-label="Loading messages" />;
  } else if (messages.data.length === 0) {
    content = <Typography color="text.secondary">No messages yet.</Typography>;
  } else {
    content = (
      <List dense aria-label={`Messages of capcode ${target?.capcode ?? ""}`}>
        {messages.data.map((message) => (
          <ListItem key={message.id} divider disableGutters>
            <ListItemText
              primary={displayText(message.message)}
              secondary={`${typePresentation(normalizeAlertType(message.type)).label} · ${formatDateTime(message.created_at)}`}
            />
          </ListItem>
        ))}
      </List>
    );
  }

  return (
    <Dialog open={target !== null} onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth>
      <DialogTitle id={titleId}>{`Messages of capcode ${target?.capcode ?? ""}`}</DialogTitle>
      <DialogContent>{content}</DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
