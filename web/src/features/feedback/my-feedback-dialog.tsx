import AddIcon from "@mui/icons-material/Add";
import ArrowBackIcon from "@mui/icons-material/ArrowBack";
import Button from "@mui/material/Button";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useId, useState } from "react";
import { MemberDialog } from "../../ui/member-dialog";
import { useNoticeToast } from "../../ui/notice-toast";
import { useHeadingFocus } from "../../ui/use-heading-focus";
import { ConversationList } from "./conversation-list";
import { FeedbackThreadView } from "./feedback-thread";
import { NewFeedbackForm } from "./new-feedback-form";
import { useMyConversations, useRefreshBadgeOnOpen } from "./queries";

type View = { kind: "list" } | { kind: "new" } | { kind: "thread"; id: number };

function MyFeedbackContent({ onClose }: { onClose: () => void }) {
  const conversations = useMyConversations();
  const { show, toast } = useNoticeToast();
  const notify = (message: string) => show(message, true);
  const [view, setView] = useState<View>({ kind: "list" });
  const headingRef = useHeadingFocus(view);
  const listHeadingId = useId();

  if (view.kind === "new") {
    return (
      <>
        <DialogContent dividers>
          <NewFeedbackForm
            headingRef={headingRef}
            notify={notify}
            onCreated={(id) => setView({ kind: "thread", id })}
            onCancel={() => setView({ kind: "list" })}
          />
        </DialogContent>
        {toast}
      </>
    );
  }

  if (view.kind === "thread") {
    return (
      <>
        <DialogContent dividers>
          <FeedbackThreadView conversationId={view.id} side="user" notify={notify} headingRef={headingRef} />
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 2 }}>
          <Button startIcon={<ArrowBackIcon aria-hidden="true" />} onClick={() => setView({ kind: "list" })}>
            All feedback
          </Button>
        </DialogActions>
        {toast}
      </>
    );
  }

  return (
    <>
      <DialogContent dividers>
        <Stack spacing={2} component="section" aria-labelledby={listHeadingId}>
          <Typography id={listHeadingId} ref={headingRef} tabIndex={-1} variant="h6" component="h3">
            Your feedback
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Tell the admins about a problem or an idea; a photo or a short video helps.
          </Typography>
          <ConversationList
            conversations={conversations.data ?? []}
            status={conversations.status}
            emptyText="You have not sent any feedback yet."
            onRetry={() => void conversations.refetch()}
            onOpen={(conversation) => setView({ kind: "thread", id: conversation.id })}
          />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1, px: 3, py: 2 }}>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setView({ kind: "new" })}>
          New feedback
        </Button>
      </DialogActions>
      {toast}
    </>
  );
}

/**
 * The My Feedback dialog (SPEC 2 and 4): the member's conversations with the admins, a new one, and
 * each thread with its replies, photos and videos. Full screen on phones. Mount it from the user
 * menu's 'Feedback' item; the unread badge is asked again 0.5 s after it opens.
 */
export function MyFeedbackDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  useRefreshBadgeOnOpen("user", open);
  return (
    <MemberDialog open={open} title="My Feedback" onClose={onClose}>
      <MyFeedbackContent onClose={onClose} />
    </MemberDialog>
  );
}
