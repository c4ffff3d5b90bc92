import CloseIcon from "@mui/icons-material/Close";
import DialogTitle from "@mui/material/DialogTitle";
import IconButton from "@mui/material/IconButton";
import type { ReactNode } from "react";

/** A dialog title with a close button at its end (a big enough target on a phone). */
export function DialogTitleWithClose({
  id,
  children,
  onClose,
  closeLabel = "Close",
}: {
  id: string;
  children: ReactNode;
  onClose: () => void;
  closeLabel?: string;
}) {
  return (
    <DialogTitle id={id} sx={{ display: "flex", alignItems: "center", gap: 1, pr: 1 }}>
      <span style={{ flexGrow: 1 }}>{children}</span>
      <IconButton aria-label={closeLabel} onClick={onClose} edge="end">
        <CloseIcon />
      </IconButton>
    </DialogTitle>
  );
}
