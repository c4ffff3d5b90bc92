import AttachFileIcon from "@mui/icons-material/AttachFile";
import CancelIcon from "@mui/icons-material/Cancel";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import LinearProgress from "@mui/material/LinearProgress";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { ACCEPTED_IMAGE_TYPES, ACCEPTED_VIDEO_TYPES, checkAttachment } from "@turnout/domain";
import { useId, useRef, useState } from "react";

/** What the file picker offers: the accepted photo and video types, and their usual extensions. */
const ACCEPT = [...ACCEPTED_IMAGE_TYPES, ...ACCEPTED_VIDEO_TYPES, ".heic", ".mov"].join(",");

/**
 * An optional photo or video: a button opening the picker, the chosen file's name (removable), and the
 * 'File Too Large' or unsupported-type dialog (SPEC 5) for a file that cannot be sent. The chosen
 * file is not previewed: the name says enough, and a local video would need a looser CSP.
 */
export function AttachmentField({
  file,
  onChange,
  disabled = false,
}: {
  file: File | null;
  onChange: (file: File | null) => void;
  disabled?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [refusal, setRefusal] = useState<{ title: string; message: string } | null>(null);
  const titleId = useId();
  const textId = useId();

  const choose = (chosen: File | undefined) => {
    if (input.current) input.current.value = "";
    if (!chosen) return;
    const checked = checkAttachment(chosen);
    if (!checked.ok) {
      setRefusal({ title: checked.title, message: checked.message });
      return;
    }
    onChange(chosen);
  };

  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: "center", flexWrap: "wrap" }}>
      <input
        ref={input}
        type="file"
        accept={ACCEPT}
        hidden
        aria-label="Photo or video"
        data-testid="feedback-file-input"
        onChange={(event) => choose(event.target.files?.[0])}
      />
      <Button
        size="small"
        startIcon={<AttachFileIcon aria-hidden="true" />}
        onClick={() => input.current?.click()}
        disabled={disabled}
      >
        {file ? "Change attachment" : "Attach photo or video"}
      </Button>
      {file ? (
        <Chip
          label={file.name}
          onDelete={disabled ? undefined : () => onChange(null)}
          deleteIcon={<CancelIcon aria-label={`Remove ${file.name}`} aria-hidden="false" role="button" />}
          sx={{ maxWidth: 260 }}
        />
      ) : null}
      <Dialog
        open={refusal !== null}
        onClose={() => setRefusal(null)}
        aria-labelledby={titleId}
        aria-describedby={textId}
        slotProps={{ paper: { role: "alertdialog" } }}
      >
        <DialogTitle id={titleId}>{refusal?.title}</DialogTitle>
        <DialogContent>
          <DialogContentText id={textId}>{refusal?.message}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRefusal(null)} autoFocus>
            OK
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}

/** The upload's progress bar with its percentage in words. */
export function UploadProgress({ percent }: { percent: number | null }) {
  if (percent === null) return null;
  return (
    <Stack spacing={0.5}>
      <LinearProgress variant="determinate" value={percent} aria-label="Upload progress" />
      <Typography variant="caption" color="text.secondary" role="status">
        {`Uploading… ${percent}%`}
      </Typography>
    </Stack>
  );
}
