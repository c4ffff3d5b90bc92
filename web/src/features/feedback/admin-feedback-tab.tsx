import DeleteIcon from "@mui/icons-material/Delete";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import MenuItem from "@mui/material/MenuItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { FEEDBACK_STATUSES, type FeedbackStatus } from "@turnout/domain";
import { useState } from "react";
import { useConfirmation } from "../../ui/confirmation";
import { formatBytes } from "../../ui/format-bytes";
import { useNoticeToast } from "../../ui/notice-toast";
import { StatusFilter } from "../../ui/status-filter";
import { ConversationList } from "./conversation-list";
import type { Conversation } from "./feedback-api";
import { FEEDBACK_STATUS_PRESENTATION } from "./feedback-status";
import { FeedbackThreadView } from "./feedback-thread";
import {
  useAdminConversations,
  useAdminFeedbackLive,
  useDeleteConversation,
  useFeedbackStats,
  useRefreshBadgeOnOpen,
  useSetStatus,
} from "./queries";

/** Shown when the server has no ffmpeg (stats.ffmpeg_available false). */
export const FFMPEG_UNAVAILABLE_TEXT =
  "Video conversion is unavailable on the server: videos that are not MP4/WebM are kept as uploaded.";

/** "1 conversation", "3 conversations". */
const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function StatsLine() {
  const stats = useFeedbackStats();
  if (!stats.data) return null;
  const figures = stats.data;
  return (
    <>
      <Typography variant="body2" color="text.secondary">
        {[
          counted(figures.total, "conversation"),
          `${figures.open} open`,
          `${figures.in_progress} in progress`,
          `${figures.closed} closed`,
          `${figures.unread_count} unread`,
          counted(figures.messages, "message"),
          `${counted(figures.attachments, "attachment")} (${formatBytes(figures.attachment_bytes)})`,
        ].join(" · ")}
      </Typography>
      {figures.ffmpeg_available ? null : <Alert severity="warning">{FFMPEG_UNAVAILABLE_TEXT}</Alert>}
    </>
  );
}

/** Status select and delete for the selected conversation. */
function ConversationActions({
  conversation,
  notify,
  onDelete,
}: {
  conversation: Conversation;
  notify: (message: string, error?: boolean) => void;
  onDelete: (conversation: Conversation) => void;
}) {
  const setStatus = useSetStatus();
  const change = async (status: FeedbackStatus) => {
    try {
      await setStatus.mutateAsync({ id: conversation.id, status });
      notify(`Status changed to ${FEEDBACK_STATUS_PRESENTATION[status].label}`);
    } catch {
      notify("Failed to change the status. Please try again.", true);
    }
  };
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: "center", pt: 1 }}>
      <TextField
        select
        size="small"
        label="Status"
        value={conversation.status}
        disabled={setStatus.isPending}
        onChange={(event) => void change(event.target.value as FeedbackStatus)}
        sx={{ minWidth: 160 }}
      >
        {FEEDBACK_STATUSES.map((status) => (
          <MenuItem key={status} value={status}>
            {FEEDBACK_STATUS_PRESENTATION[status].label}
          </MenuItem>
        ))}
      </TextField>
      <Button
        color="error"
        startIcon={<DeleteIcon aria-hidden="true" />}
        onClick={() => onDelete(conversation)}
      >
        Delete
      </Button>
    </Stack>
  );
}

/**
 * The admin console's Feedback tab (SPEC 2): every conversation with a status filter and the figures,
 * and the selected one's thread with reply (and attachments), status change and delete. New
 * conversations and messages arrive live from the admin channel.
 */
export function FeedbackTab() {
  const [filter, setFilter] = useState<FeedbackStatus | null>(null);
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const confirm = useConfirmation();
  const conversations = useAdminConversations(filter);
  const remove = useDeleteConversation();
  const { show, toast } = useNoticeToast();
  const notifyError = (message: string) => show(message, true);
  useRefreshBadgeOnOpen("admin", true);
  useAdminFeedbackLive();

  const deleteConversation = async (conversation: Conversation) => {
    try {
      await remove.mutateAsync(conversation.id);
      setSelectedId((current) => (current === conversation.id ? null : current));
      confirm.close();
      show("Conversation deleted");
    } catch {
      // Shown inside the confirmation, which stays open for another try.
    }
  };
  const askDelete = (conversation: Conversation) => {
    remove.reset();
    confirm.ask({
      title: "Delete conversation?",
      text: `'${conversation.subject}' will be deleted with all its messages, photos and videos. This cannot be undone.`,
      confirmLabel: "Delete",
      onConfirm: () => void deleteConversation(conversation),
    });
  };

  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={2} sx={{ alignItems: "center", flexWrap: "wrap" }}>
        <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
          Feedback
        </Typography>
        <StatusFilter
          label="Status filter"
          value={filter}
          statuses={FEEDBACK_STATUSES}
          labelOf={(status) => FEEDBACK_STATUS_PRESENTATION[status].label}
          onChange={setFilter}
          sx={{ minWidth: 180 }}
        />
      </Stack>
      <StatsLine />
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "minmax(280px, 2fr) 3fr" } }}>
        <Paper variant="outlined" sx={{ alignSelf: "start", overflow: "hidden" }}>
          <ConversationList
            conversations={conversations.data ?? []}
            status={conversations.status}
            showMember
            selectedId={selectedId}
            emptyText="No feedback conversations."
            onRetry={() => void conversations.refetch()}
            onOpen={(conversation) => setSelectedId(conversation.id)}
          />
        </Paper>
        <Paper variant="outlined" sx={{ p: 2 }}>
          {selectedId === null ? (
            <Typography color="text.secondary">Select a conversation to read and answer it.</Typography>
          ) : (
            <FeedbackThreadView
              key={selectedId}
              conversationId={selectedId}
              side="admin"
              notify={notifyError}
              actions={(conversation) => (
                <ConversationActions conversation={conversation} notify={show} onDelete={askDelete} />
              )}
            />
          )}
        </Paper>
      </Box>
      {confirm.dialog({
        busy: remove.isPending,
        error: remove.isError ? "Failed to delete the conversation. Please try again." : null,
      })}
      {toast}
    </Stack>
  );
}
