import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import { type ReactNode, useEffect, useId, useState } from "react";

/**
 * The success notice of a view that stays open across changes (a dialog over one agency): a new
 * subject (`subjectKey`) starts clean, the same one reloaded after a change keeps its notice.
 */
export function useNotice(subjectKey: unknown) {
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    if (subjectKey !== null && subjectKey !== undefined) setNotice(null);
  }, [subjectKey]);
  return [notice, setNotice] as const;
}

/** A success notice that says what the last change did, dismissible; nothing when there is none. */
export function NoticeAlert({
  notice,
  onClose,
  sx,
}: {
  notice: string | null;
  onClose: () => void;
  sx?: object;
}) {
  if (!notice) return null;
  return (
    <Alert severity="success" role="status" onClose={onClose} sx={sx}>
      {notice}
    </Alert>
  );
}

/** A dialog that manages one subject's list (an agency's capcodes or units): notice, content, Close. */
export function ListDialog({
  open,
  title,
  notice,
  onNoticeClose,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  notice: string | null;
  onNoticeClose: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth>
      <DialogTitle id={titleId}>{title}</DialogTitle>
      <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2 }}>
        <NoticeAlert notice={notice} onClose={onNoticeClose} />
        {children}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
