import InsertDriveFileIcon from "@mui/icons-material/InsertDriveFile";
import SendIcon from "@mui/icons-material/Send";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Link from "@mui/material/Link";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useQueryClient } from "@tanstack/react-query";
import {
  CLOSED_CONVERSATION_TEXT,
  canReplyToConversation,
  feedbackMessageSchema,
  formatDateTime,
  MARK_READ_DELAY_MS,
  MESSAGES,
} from "@turnout/domain";
import { type FormEvent, type ReactNode, useEffect, useId, useState } from "react";
import { isApiError } from "../../api/errors";
import { subscribeLiveEvents } from "../../api/live-events";
import { AttachmentField, UploadProgress } from "./attachment-field";
import { memberName } from "./conversation-list";
import type { Conversation, FeedbackMessageItem, MediaAttachment } from "./feedback-api";
import { FeedbackStatusChip } from "./feedback-status";
import { conversationIdOf, useMarkRead, useSendMessage, useThread } from "./queries";
import { type FeedbackSide, feedbackKeys } from "./unread";
import { uploadErrorMessage, useAttachmentUpload } from "./use-upload";
// English messages for the zod issues this form shows.
import "../../app/zod-messages";

/** Who wrote a message, as the reader of this side sees it. */
export function senderLabel(message: FeedbackMessageItem, side: FeedbackSide): string {
  if (message.is_admin) return message.sender_name ?? "Admin";
  if (side === "user") return "You";
  return message.sender_name ?? "Member";
}

function DownloadLink({ media }: { media: MediaAttachment }) {
  return (
    <Link href={media.file_path} download={media.file_name} target="_blank" rel="noopener">
      {`Download ${media.file_name}`}
    </Link>
  );
}

/**
 * A photo the server made no thumbnail of (HEIC, which only Safari shows; a damaged file): a card to
 * download it, never the original in the page, which could be any size the file's header claims.
 */
function FileCard({ media }: { media: MediaAttachment }) {
  return (
    <Paper
      variant="outlined"
      role="group"
      aria-label={`File ${media.file_name}`}
      sx={{ p: 1, display: "flex", gap: 1, alignItems: "center", maxWidth: 320 }}
    >
      <InsertDriveFileIcon color="action" aria-hidden="true" />
      <Stack sx={{ minWidth: 0 }}>
        <Typography variant="body2" noWrap title={media.file_name}>
          {media.file_name}
        </Typography>
        <Typography variant="caption" color="text.secondary">
          {`No preview · ${formatFileSize(media.size_bytes)}`}
        </Typography>
        <DownloadLink media={media} />
      </Stack>
    </Paper>
  );
}

function formatFileSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** A photo's thumbnail; a click shows the full image in a dialog. */
function ImageAttachment({ media }: { media: MediaAttachment }) {
  const [open, setOpen] = useState(false);
  const titleId = useId();
  if (!media.thumbnail_path) return <FileCard media={media} />;
  return (
    <>
      <Box
        component="button"
        type="button"
        onClick={() => setOpen(true)}
        aria-label={`Open photo ${media.file_name}`}
        sx={{ p: 0, border: 0, background: "none", cursor: "zoom-in", display: "block" }}
      >
        <img
          src={media.thumbnail_path}
          alt={media.file_name}
          loading="lazy"
          style={{ maxWidth: 240, maxHeight: 240, borderRadius: 4, display: "block" }}
        />
      </Box>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="lg" aria-labelledby={titleId}>
        <DialogTitle id={titleId}>{media.file_name}</DialogTitle>
        <DialogContent>
          <img src={media.file_path} alt={media.file_name} style={{ maxWidth: "100%", display: "block" }} />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Close</Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** A video: playable, or 'Converting video...' while the server converts it, or why it cannot play. */
function VideoAttachment({ media }: { media: MediaAttachment }) {
  if (media.conversion_status === "pending") {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: "center" }} role="status">
        <CircularProgress size={16} aria-hidden="true" />
        <Typography variant="body2">{MESSAGES.VIDEO_CONVERTING}</Typography>
      </Stack>
    );
  }
  if (media.conversion_status === "failed" || media.conversion_status === "unavailable") {
    return (
      <Stack spacing={0.5}>
        <Typography variant="body2" color="text.secondary">
          {media.conversion_status === "failed"
            ? "This video could not be converted for playback."
            : "Video conversion unavailable: the video is kept as it was uploaded."}
        </Typography>
        <DownloadLink media={media} />
      </Stack>
    );
  }
  return (
    // biome-ignore lint/a11y/useMediaCaption: members' own recordings have no captions to offer
    <video
      controls
      preload="metadata"
      src={media.file_path}
      poster={media.thumbnail_path ?? undefined}
      aria-label={`Video ${media.file_name}`}
      style={{ maxWidth: "100%", maxHeight: 320, borderRadius: 4, display: "block" }}
    />
  );
}

function MessageBubble({ message, side }: { message: FeedbackMessageItem; side: FeedbackSide }) {
  const mine = message.is_admin === (side === "admin");
  const sender = senderLabel(message, side);
  return (
    <Box
      component="li"
      aria-label={`Message from ${sender}`}
      sx={{ listStyle: "none", display: "flex", justifyContent: mine ? "flex-end" : "flex-start" }}
    >
      <Paper
        variant="outlined"
        sx={{ p: 1.5, maxWidth: "85%", bgcolor: mine ? "action.hover" : "background.paper" }}
      >
        <Typography variant="caption" color="text.secondary" component="p">
          {[sender, message.created_at ? formatDateTime(message.created_at) : null]
            .filter(Boolean)
            .join(" · ")}
        </Typography>
        {message.message ? (
          <Typography variant="body2" sx={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {message.message}
          </Typography>
        ) : null}
        {message.media_attachments.length > 0 ? (
          <Stack spacing={1} sx={{ mt: 1 }}>
            {message.media_attachments.map((media) =>
              media.kind === "video" ? (
                <VideoAttachment key={media.id} media={media} />
              ) : (
                <ImageAttachment key={media.id} media={media} />
              ),
            )}
          </Stack>
        ) : null}
      </Paper>
    </Box>
  );
}

/** The reply box: text, an optional attachment, a progress bar while it uploads. */
function ReplyBox({ conversationId, notify }: { conversationId: number; notify: (message: string) => void }) {
  const send = useSendMessage();
  const { upload, progress, uploading } = useAttachmentUpload();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = send.isPending || uploading;

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (file) {
      try {
        await upload(conversationId, file, text.trim());
        setText("");
        setFile(null);
      } catch (failure) {
        notify(uploadErrorMessage(failure));
      }
      return;
    }
    const checked = feedbackMessageSchema.safeParse({ message: text });
    if (!checked.success) {
      setError("Message is required");
      return;
    }
    setError(null);
    try {
      await send.mutateAsync({ id: conversationId, message: checked.data.message });
      setText("");
    } catch (failure) {
      notify(
        isApiError(failure) && failure.status === 409 && failure.serverMessage
          ? failure.serverMessage
          : MESSAGES.FEEDBACK_SEND_FAILED,
      );
    }
  };

  return (
    <Stack component="form" spacing={1} onSubmit={handleSubmit} noValidate>
      <TextField
        label="Reply"
        multiline
        minRows={2}
        maxRows={8}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          if (error && event.target.value.trim() !== "") setError(null);
        }}
        error={error !== null}
        helperText={error ?? (file ? "Optional with an attachment" : undefined)}
        disabled={busy}
        slotProps={{ htmlInput: { maxLength: 5000 } }}
      />
      <AttachmentField file={file} onChange={setFile} disabled={busy} />
      <UploadProgress percent={progress} />
      <Box sx={{ display: "flex", justifyContent: "flex-end" }}>
        <Button type="submit" variant="contained" endIcon={<SendIcon aria-hidden="true" />} disabled={busy}>
          Send
        </Button>
      </Box>
    </Stack>
  );
}

/**
 * One conversation (SPEC 4): its messages oldest first with who wrote each, photos and videos
 * inline, and the reply box, or the closed text once it is closed. It is marked read 0.5 s after it
 * opens and again when a new message arrives while it is open; the live events for this
 * conversation refresh it.
 */
export function FeedbackThreadView({
  conversationId,
  side,
  notify,
  actions,
  headingRef,
}: {
  conversationId: number;
  side: FeedbackSide;
  notify: (message: string) => void;
  /** Controls shown under the heading, given the conversation as last loaded (the admins' status and delete). */
  actions?: (conversation: Conversation) => ReactNode;
  headingRef?: React.Ref<HTMLHeadingElement>;
}) {
  const queryClient = useQueryClient();
  const thread = useThread(conversationId);
  const markRead = useMarkRead(side);
  const [arrivals, setArrivals] = useState(0);
  const headingId = useId();
  const { mutate: mark } = markRead;

  // biome-ignore lint/correctness/useExhaustiveDependencies: each arrival marks the thread read again
  useEffect(() => {
    const timer = setTimeout(() => mark(conversationId), MARK_READ_DELAY_MS);
    return () => clearTimeout(timer);
  }, [conversationId, mark, arrivals]);

  useEffect(
    () =>
      subscribeLiveEvents(
        ["feedback:new-message", "feedback:media-converted", "feedback:status-changed"],
        (event, payload) => {
          if (conversationIdOf(payload) !== conversationId) return;
          void queryClient.invalidateQueries({ queryKey: feedbackKeys.thread(conversationId) });
          if (event === "feedback:new-message") setArrivals((count) => count + 1);
        },
      ),
    [queryClient, conversationId],
  );

  if (thread.isPending) {
    return (
      <Box sx={{ display: "flex", justifyContent: "center", py: 3 }}>
        <CircularProgress aria-label="Loading conversation" />
      </Box>
    );
  }
  if (thread.isError) {
    const notFound = isApiError(thread.error) && thread.error.status === 404;
    return (
      <Alert
        severity="error"
        action={
          notFound ? undefined : (
            <Button color="inherit" size="small" onClick={() => void thread.refetch()}>
              Retry
            </Button>
          )
        }
      >
        {notFound ? "Conversation not found." : "Failed to load the conversation."}
      </Alert>
    );
  }

  const { conversation, messages } = thread.data;
  return (
    <Stack spacing={2} component="section" aria-labelledby={headingId}>
      <Stack spacing={0.5}>
        <Stack direction="row" spacing={1} sx={{ alignItems: "center", flexWrap: "wrap" }}>
          <Typography
            id={headingId}
            ref={headingRef}
            tabIndex={-1}
            variant="h6"
            component="h3"
            sx={{ flexGrow: 1, overflowWrap: "anywhere" }}
          >
            {conversation.subject}
          </Typography>
          <FeedbackStatusChip status={conversation.status} />
        </Stack>
        {side === "admin" ? (
          <Typography variant="body2" color="text.secondary">
            {`From ${memberName(conversation)}`}
          </Typography>
        ) : null}
        {actions?.(conversation)}
      </Stack>
      <Stack component="ol" aria-label="Messages" spacing={1} sx={{ p: 0, m: 0 }}>
        {messages.map((message) => (
          <MessageBubble key={message.id} message={message} side={side} />
        ))}
      </Stack>
      {canReplyToConversation(conversation.status) ? (
        <ReplyBox conversationId={conversationId} notify={notify} />
      ) : (
        <Alert severity="info" role="note">
          {CLOSED_CONVERSATION_TEXT}
        </Alert>
      )}
    </Stack>
  );
}
