import TextField from "@mui/material/TextField";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { AdminList } from "../data-view/admin-list";
import { FormDialog } from "../data-view/form-dialog";
import { Section } from "../data-view/section";
import { securityQueries, useUpdateSecurityConfig } from "./queries";
import type { SecurityConfigEntry } from "./security-api";

/** The server's bounds for every setting (it answers 400 outside them). */
const VALUE_MIN = 1;
const VALUE_MAX = 1_000_000;
const DESCRIPTION_MAX_LENGTH = 300;

function valueError(text: string): string | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < VALUE_MIN || Number(trimmed) > VALUE_MAX) {
    return `A whole number from ${VALUE_MIN} to ${VALUE_MAX.toLocaleString("en-AU")}.`;
  }
  return null;
}

function ConfigDialog({ entry, onClose }: { entry: SecurityConfigEntry; onClose: () => void }) {
  const [value, setValue] = useState(String(entry.value));
  const [description, setDescription] = useState(entry.description);
  const [submitted, setSubmitted] = useState(false);
  const update = useUpdateSecurityConfig();
  const error = valueError(value);

  const handleSubmit = () => {
    setSubmitted(true);
    if (error) return;
    const trimmed = description.trim();
    update.mutate(
      {
        key: entry.key,
        value: Number(value.trim()),
        description: trimmed === entry.description ? undefined : trimmed,
      },
      { onSuccess: onClose },
    );
  };

  return (
    <FormDialog
      open
      title={`Edit ${entry.key}`}
      error={update.isError ? update.error.message : null}
      busy={update.isPending}
      onSubmit={handleSubmit}
      onClose={onClose}
    >
      <TextField
        label="Value"
        value={value}
        onChange={(event) => setValue(event.target.value)}
        error={submitted && error !== null}
        helperText={(submitted && error) || `Default ${entry.default_value ?? "—"}`}
        slotProps={{ htmlInput: { inputMode: "numeric" } }}
      />
      <TextField
        label="Description"
        value={description}
        onChange={(event) => setDescription(event.target.value)}
        multiline
        slotProps={{ htmlInput: { maxLength: DESCRIPTION_MAX_LENGTH } }}
      />
    </FormDialog>
  );
}

/** Every security setting with its description and the value in force; each can be edited. */
export function ConfigSection() {
  const config = useQuery(securityQueries.config());
  const [editing, setEditing] = useState<SecurityConfigEntry | null>(null);
  return (
    <Section id="security-config-heading" title="Configuration">
      <AdminList
        query={config}
        loadingLabel="Loading security configuration"
        label="Security configuration"
        rowKey={(entry) => entry.key}
        columns={[
          { header: "Setting", cell: (entry) => entry.key, sx: { fontFamily: "monospace" } },
          { header: "Description", cell: (entry) => entry.description },
          { header: "Value", cell: (entry) => entry.value },
          { header: "Default", cell: (entry) => entry.default_value ?? "—" },
        ]}
        actions={[{ label: "Edit", ariaLabel: (entry) => `Edit ${entry.key}`, onClick: setEditing }]}
      />
      {editing && <ConfigDialog entry={editing} onClose={() => setEditing(null)} />}
    </Section>
  );
}
