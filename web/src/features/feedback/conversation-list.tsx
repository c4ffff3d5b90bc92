import Alert from "@mui/material/Alert";
import Badge from "@mui/material/Badge";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemButton from "@mui/material/ListItemButton";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { formatDateTime } from "@turnout/domain";
import type { Conversation } from "./feedback-api";
import { FeedbackStatusChip } from "./feedback-status";

function messageCountText(count: number): string {
  return count === 1 ? "1 message" : `${count} messages`;
}

/** Who opened a conversation, for the admins' list. */
export function memberName(conversation: Conversation): string {
  const name = `${conversation.user?.first_name ?? ""} ${conversation.user?.last_name ?? ""}`.trim();
  return name || "Unknown member";
}

/**
 * Conversations as a list of buttons: subject, status, message count, when, the member's name
 * (admins), and an unread mark that says how many in words too.
 */
export function ConversationList({
  conversations,
  status,
  showMember = false,
  selectedId = null,
  emptyText,
  onRetry,
  onOpen,
}: {
  conversations: Conversation[];
  status: "pending" | "error" | "success";
  showMember?: boolean;
  selectedId?: number | null;
  emptyText: string;
  onRetry: () => void;
  onOpen: (conversation: Conversation) => void;
}) {
  if (status === "pending") {
    return (
      <Box sx={{ display: "flex", justifyContent: "center", py: 3 }}>
        <CircularProgress aria-label="Loading conversations" />
      </Box>
    );
  }
  if (status === "error") {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={onRetry}>
            Retry
          </Button>
        }
      >
        Failed to load feedback
      </Alert>
    );
  }
  if (conversations.length === 0) {
    return (
      <Typography color="text.secondary" sx={{ py: 2 }}>
        {emptyText}
      </Typography>
    );
  }
  return (
    <List aria-label="Conversations" disablePadding>
      {conversations.map((conversation) => (
        <ListItem key={conversation.id} disablePadding divider>
          <ListItemButton
            selected={conversation.id === selectedId}
            onClick={() => onOpen(conversation)}
            aria-current={conversation.id === selectedId ? "true" : undefined}
          >
            <Stack spacing={0.5} sx={{ width: "100%", minWidth: 0 }}>
              <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
                <Typography
                  component="span"
                  sx={{
                    flexGrow: 1,
                    fontWeight: conversation.unread_count > 0 ? 700 : 400,
                    overflow: "hidden",
                    textOverflow: "ellipsis",
                  }}
                >
                  {conversation.subject}
                </Typography>
                {conversation.unread_count > 0 ? (
                  <Badge
                    color="error"
                    badgeContent={conversation.unread_count}
                    max={9}
                    sx={{ mr: 1 }}
                    slotProps={{ badge: { "aria-hidden": true } }}
                  >
                    <span />
                  </Badge>
                ) : null}
                <FeedbackStatusChip status={conversation.status} />
              </Stack>
              <Typography component="span" variant="body2" color="text.secondary">
                {[
                  showMember ? memberName(conversation) : null,
                  messageCountText(conversation.message_count),
                  conversation.unread_count > 0 ? `${conversation.unread_count} unread` : null,
                  conversation.last_message_at ? formatDateTime(conversation.last_message_at) : null,
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </Typography>
            </Stack>
          </ListItemButton>
        </ListItem>
      ))}
    </List>
  );
}
