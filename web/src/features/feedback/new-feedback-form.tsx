import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { MESSAGES, newFeedbackSchema } from "@turnout/domain";
import { type FormEvent, useState } from "react";
import { flattenError } from "zod/mini";
import { AttachmentField, UploadProgress } from "./attachment-field";
import { useCreateFeedback } from "./queries";
import { useAttachmentUpload } from "./use-upload";
// English messages for the zod issues this form shows.
import "../../app/zod-messages";

type FieldErrors = { subject?: string | undefined; message?: string | undefined };

/**
 * A new conversation (SPEC 4 and 5): subject and message, both required and non-blank, and an
 * optional photo or video. The conversation is created first, then the file uploaded into it; if
 * only the upload fails the conversation still opens, with the SPEC 8 text saying so.
 */
export function NewFeedbackForm({
  headingRef,
  notify,
  onCreated,
  onCancel,
}: {
  headingRef?: React.Ref<HTMLHeadingElement>;
  notify: (message: string) => void;
  onCreated: (conversationId: number) => void;
  onCancel: () => void;
}) {
  const create = useCreateFeedback();
  const { upload, progress, uploading } = useAttachmentUpload();
  const [subject, setSubject] = useState("");
  const [message, setMessage] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const busy = create.isPending || uploading;

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const checked = newFeedbackSchema.safeParse({ subject, message });
    if (!checked.success) {
      const fields = flattenError(checked.error).fieldErrors;
      setErrors({ subject: fields.subject?.[0], message: fields.message?.[0] });
      return;
    }
    setErrors({});
    let conversationId: number;
    try {
      conversationId = (await create.mutateAsync(checked.data)).conversation.id;
    } catch {
      notify(MESSAGES.FEEDBACK_CREATE_FAILED);
      return;
    }
    if (file) {
      try {
        await upload(conversationId, file, "");
      } catch {
        notify(MESSAGES.FEEDBACK_ATTACHMENT_FAILED);
      }
    }
    onCreated(conversationId);
  };

  return (
    <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate aria-label="New feedback">
      <Typography ref={headingRef} tabIndex={-1} variant="h6" component="h3">
        New feedback
      </Typography>
      <TextField
        label="Subject"
        required
        value={subject}
        onChange={(event) => setSubject(event.target.value)}
        error={Boolean(errors.subject)}
        helperText={errors.subject}
        disabled={busy}
        slotProps={{ htmlInput: { maxLength: 200 } }}
      />
      <TextField
        label="Message"
        required
        multiline
        minRows={4}
        maxRows={12}
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        error={Boolean(errors.message)}
        helperText={errors.message}
        disabled={busy}
        slotProps={{ htmlInput: { maxLength: 5000 } }}
      />
      <AttachmentField file={file} onChange={setFile} disabled={busy} />
      <UploadProgress percent={progress} />
      <Stack direction="row" spacing={1} sx={{ justifyContent: "flex-end" }}>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" disabled={busy}>
          Send feedback
        </Button>
      </Stack>
    </Stack>
  );
}
