import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import { useQuery } from "@tanstack/react-query";
import { displayText, formatDateTime, normalizeAlertType, typePresentation } from "@turnout/domain";
import { useId } from "react";
import { QueryState } from "../data-view/query-state";
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

  const content = (
    <QueryState
      query={messages}
      loadingLabel="Loading messages"
      spinnerSize={24}
      errorText={errorText}
      emptyText="No messages yet."
    >
      {(list) => (
        <List dense aria-label={`Messages of capcode ${target?.capcode ?? ""}`}>
          {list.map((message) => (
            <ListItem key={message.id} divider disableGutters>
              <ListItemText
                primary={displayText(message.message)}
                secondary={`${typePresentation(normalizeAlertType(message.type)).label} · ${formatDateTime(message.created_at)}`}
              />
            </ListItem>
          ))}
        </List>
      )}
    </QueryState>
  );

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
