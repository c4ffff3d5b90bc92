import FormControlLabel from "@mui/material/FormControlLabel";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import { useState } from "react";
import { FormDialog } from "../data-view/form-dialog";
import { FormTextField } from "../data-view/form-fields";
import type { GroupingPattern, PatternInput } from "./grouping-api";

/** The server's limits (it answers 400 beyond them). */
const PATTERN_MAX_LENGTH = 200;
const PRIORITY_MAX = 10_000;
const DEFAULT_PRIORITY = 100;

interface Draft {
  name: string;
  pattern: string;
  description: string;
  priority: string;
  is_active: boolean;
}

function draftOf(pattern: GroupingPattern | null): Draft {
  return {
    name: pattern?.name ?? "",
    pattern: pattern?.pattern ?? "",
    description: pattern?.description ?? "",
    priority: String(pattern?.priority ?? DEFAULT_PRIORITY),
    is_active: pattern?.is_active ?? true,
  };
}

function errorsOf(draft: Draft): Partial<Record<keyof Draft, string>> {
  const errors: Partial<Record<keyof Draft, string>> = {};
  if (draft.name.trim() === "") errors.name = "A name is required.";
  if (draft.pattern === "") errors.pattern = "A pattern is required.";
  const priority = Number(draft.priority);
  if (!/^\d+$/.test(draft.priority.trim()) || priority > PRIORITY_MAX) {
    errors.priority = `A whole number from 0 to ${PRIORITY_MAX}.`;
  }
  return errors;
}

/**
 * Create or edit a job-number pattern. The first capture group (or the whole match) is the job
 * number; the server refuses a pattern that does not compile, and its message is shown here.
 */
export function PatternDialog({
  open,
  pattern,
  busy,
  error,
  onCancel,
  onSave,
}: {
  open: boolean;
  /** The pattern to edit; null to create one. */
  pattern: GroupingPattern | null;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onSave: (input: PatternInput) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(pattern));
  const [submitted, setSubmitted] = useState(false);
  const errors = errorsOf(draft);
  const shown = submitted ? errors : {};
  const set = (field: keyof Draft) => (value: string | boolean) =>
    setDraft((current) => ({ ...current, [field]: value }));

  const handleSubmit = () => {
    setSubmitted(true);
    if (Object.keys(errors).length > 0) return;
    onSave({
      name: draft.name.trim(),
      pattern: draft.pattern,
      description: draft.description.trim() === "" ? null : draft.description.trim(),
      priority: Number(draft.priority),
      is_active: draft.is_active,
    });
  };

  return (
    <FormDialog
      open={open}
      title={pattern ? "Edit Pattern" : "New Pattern"}
      error={error}
      busy={busy}
      onSubmit={handleSubmit}
      onClose={onCancel}
    >
      <FormTextField
        label="Name"
        required
        value={draft.name}
        onValue={set("name")}
        fieldError={shown.name}
        hint=" "
        slotProps={{ htmlInput: { maxLength: 100 } }}
      />
      <TextField
        label="Pattern"
        required
        value={draft.pattern}
        onChange={(event) => set("pattern")(event.target.value)}
        error={Boolean(shown.pattern)}
        helperText={
          shown.pattern ?? "A regular expression; its first group (or the whole match) is the job number."
        }
        slotProps={{ htmlInput: { maxLength: PATTERN_MAX_LENGTH, spellCheck: false } }}
      />
      <TextField
        label="Description"
        value={draft.description}
        onChange={(event) => set("description")(event.target.value)}
        slotProps={{ htmlInput: { maxLength: 500 } }}
      />
      <FormTextField
        label="Priority"
        value={draft.priority}
        onValue={set("priority")}
        fieldError={shown.priority}
        hint="Lower numbers are tried first."
        slotProps={{ htmlInput: { inputMode: "numeric" } }}
      />
      <FormControlLabel
        control={
          <Switch checked={draft.is_active} onChange={(event) => set("is_active")(event.target.checked)} />
        }
        label="Enabled"
      />
    </FormDialog>
  );
}
