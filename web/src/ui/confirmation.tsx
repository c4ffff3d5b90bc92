import { useCallback, useMemo, useRef, useState } from "react";
import { ConfirmDialog as Dialog } from "./confirm-dialog";

/** What a confirmation asks: a title, the consequence in words, and the button that does it. */
export interface Confirmation {
  title: string;
  text: string;
  confirmLabel: string;
  /** Red for what cannot be undone or cuts someone off (the default); false for a plain step. */
  destructive?: boolean;
  onConfirm: () => void;
}

/**
 * Asks before a step that signs someone out, removes, resets or sends something (the shared dialog,
 * driven by one pending `Confirmation` at a time). `busy` disables the confirm button while the step
 * runs; `error` shows a refusal inside the dialog.
 */
export function ConfirmDialog({
  confirmation,
  busy = false,
  error = null,
  onCancel,
}: {
  confirmation: Confirmation | null;
  busy?: boolean;
  error?: string | null;
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
      destructive={current?.destructive ?? true}
      busy={busy}
      error={error}
      onCancel={onCancel}
      onConfirm={() => confirmation?.onConfirm()}
    />
  );
}

/**
 * One pending confirmation for a view: `ask` opens the dialog, `close` ends it (call it when the
 * step settles), `dialog` renders it with the step's busy state and refusal.
 */
export function useConfirmation() {
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const close = useCallback(() => setConfirmation(null), []);
  return useMemo(
    () => ({
      confirmation,
      ask: setConfirmation,
      close,
      dialog: ({ busy = false, error = null }: { busy?: boolean; error?: string | null } = {}) => (
        <ConfirmDialog confirmation={confirmation} busy={busy} error={error} onCancel={close} />
      ),
    }),
    [confirmation, close],
  );
}
