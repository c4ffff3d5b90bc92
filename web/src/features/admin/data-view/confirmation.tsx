import { useRef } from "react";
import { ConfirmDialog as Dialog } from "../../../ui/confirm-dialog";

/** What a confirmation asks: a title, the consequence in words, and the button that does it. */
export interface Confirmation {
  title: string;
  text: string;
  confirmLabel: string;
  /** Red for what cannot be undone or cuts someone off. */
  destructive?: boolean;
  onConfirm: () => void;
}

/**
 * Asks before a step that signs someone out, removes or resets something (the shared dialog, driven
 * by one pending `Confirmation` at a time).
 */
export function ConfirmDialog({
  confirmation,
  busy = false,
  onCancel,
}: {
  confirmation: Confirmation | null;
  busy?: boolean;
  onCancel: () => void;
}) {
  // Keep the words on screen while the dialog fades out.
  const shown = useRef<Confirmation | null>(null);
  if (confirmation) shown.current = confirmation;
  const current = shown.current;
  return (
    <Dialog
      open={confirmation !== null}
      title={current?.title ?? ""}
      text={current?.text ?? ""}
      confirmLabel={current?.confirmLabel ?? ""}
      destructive={current?.destructive ?? false}
      busy={busy}
      onCancel={onCancel}
      onConfirm={() => confirmation?.onConfirm()}
    />
  );
}
