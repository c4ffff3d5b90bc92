import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import FormControlLabel from "@mui/material/FormControlLabel";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { AdminList } from "../data-view/admin-list";
import { QueryState } from "../data-view/query-state";
import { Section } from "../data-view/section";
import type { GroupingPattern, GroupingSettingKey } from "./grouping-api";
import { PatternDialog } from "./pattern-dialog";
import {
  useDeletePattern,
  useGroupingConfig,
  useGroupingPatterns,
  useGroupingSettings,
  useSavePattern,
  useTestExtraction,
  useUpdateGroupingSetting,
} from "./queries";

/** A whole-number setting with its own Save, so one change never sends another half-typed one. */
function WindowField({
  settingKey,
  label,
  unit,
  max,
  current,
  busy,
  onSave,
}: {
  settingKey: GroupingSettingKey;
  label: string;
  unit: string;
  max: number;
  current: number;
  busy: boolean;
  onSave: (key: GroupingSettingKey, value: number) => void;
}) {
  const [text, setText] = useState(String(current));
  const valid = /^\d+$/.test(text.trim()) && Number(text) <= max;
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) onSave(settingKey, Number(text));
  };
  return (
    <Stack
      component="form"
      direction="row"
      onSubmit={handleSubmit}
      noValidate
      sx={{ gap: 1, alignItems: "start" }}
    >
      <TextField
        size="small"
        label={label}
        value={text}
        onChange={(event) => setText(event.target.value)}
        error={!valid}
        helperText={valid ? unit : `A whole number of ${unit} from 0 to ${max}.`}
        slotProps={{ htmlInput: { inputMode: "numeric" } }}
      />
      <Button type="submit" variant="outlined" disabled={busy || !valid || Number(text) === current}>
        {`Save ${label.toLowerCase()}`}
      </Button>
    </Stack>
  );
}

function SettingsSection() {
  const settings = useGroupingSettings();
  const update = useUpdateGroupingSetting();
  const save = (key: GroupingSettingKey, value: boolean | number) => update.mutate({ key, value });
  return (
    <Section id="grouping-settings-heading" title="Settings">
      {update.isError && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {update.error.message}
        </Alert>
      )}
      <QueryState query={settings} loadingLabel="Loading grouping settings">
        {(data) => (
          <Stack sx={{ gap: 2 }}>
            <FormControlLabel
              control={
                <Switch
                  checked={data.grouping_enabled}
                  disabled={update.isPending}
                  onChange={(event) => save("grouping_enabled", event.target.checked)}
                />
              }
              label="Group messages by job number"
            />
            <WindowField
              key={`hours-${data.group_window_hours}`}
              settingKey="group_window_hours"
              label="Group window"
              unit="hours"
              max={24 * 30}
              current={data.group_window_hours}
              busy={update.isPending}
              onSave={save}
            />
            <WindowField
              key={`seconds-${data.duplicate_window_seconds}`}
              settingKey="duplicate_window_seconds"
              label="Duplicate window"
              unit="seconds"
              max={3600}
              current={data.duplicate_window_seconds}
              busy={update.isPending}
              onSave={save}
            />
          </Stack>
        )}
      </QueryState>
    </Section>
  );
}

function PatternsSection() {
  const patterns = useGroupingPatterns();
  const config = useGroupingConfig();
  const save = useSavePattern();
  const remove = useDeletePattern();
  // undefined: closed; null: a new pattern.
  const [editing, setEditing] = useState<GroupingPattern | null | undefined>(undefined);
  const confirm = useConfirmation();

  const openEditor = (pattern: GroupingPattern | null) => {
    save.reset();
    setEditing(pattern);
  };

  const askDelete = (pattern: GroupingPattern) =>
    confirm.ask({
      title: "Delete pattern?",
      text: `Delete the pattern “${pattern.name}”? Messages already grouped stay as they are.`,
      confirmLabel: "Delete",
      onConfirm: () => remove.mutate(pattern.id, { onSettled: confirm.close }),
    });

  return (
    <Section id="grouping-patterns-heading" title="Job-number patterns">
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        Your patterns are tried first, lowest priority number first; then the built-in ones
        {config.data?.built_in_patterns.length ? ` (${config.data.built_in_patterns.join("; ")})` : ""}. Never
        grouped: {config.data?.never_grouped.join("; ") || "—"}.
      </Typography>
      <Button startIcon={<AddIcon />} variant="contained" onClick={() => openEditor(null)} sx={{ mb: 1 }}>
        New pattern
      </Button>
      {remove.isError && <Alert severity="error">{remove.error.message}</Alert>}
      {editing === undefined && save.isError && <Alert severity="error">{save.error.message}</Alert>}
      <AdminList
        query={patterns}
        loadingLabel="Loading patterns"
        emptyText="No patterns of your own yet."
        label="Patterns"
        rowKey={(pattern) => pattern.id}
        columns={[
          { header: "Priority", cell: (pattern) => pattern.priority },
          { header: "Name", cell: (pattern) => pattern.name },
          {
            header: "Pattern",
            cell: (pattern) => pattern.pattern,
            sx: { fontFamily: "monospace", overflowWrap: "anywhere" },
          },
          { header: "Description", cell: (pattern) => pattern.description },
          {
            header: "Enabled",
            cell: (pattern) => (
              <Switch
                checked={pattern.is_active}
                disabled={save.isPending}
                onChange={(event) =>
                  save.mutate({ id: pattern.id, input: { is_active: event.target.checked } })
                }
                slotProps={{ input: { "aria-label": `${pattern.name} enabled` } }}
              />
            ),
          },
        ]}
        actions={[
          { label: "Edit", ariaLabel: (pattern) => `Edit ${pattern.name}`, onClick: openEditor },
          {
            label: "Delete",
            color: "error",
            ariaLabel: (pattern) => `Delete ${pattern.name}`,
            onClick: askDelete,
          },
        ]}
      />
      {editing !== undefined && (
        <PatternDialog
          open
          pattern={editing}
          busy={save.isPending}
          error={save.isError ? save.error.message : null}
          onCancel={() => setEditing(undefined)}
          onSave={(input) =>
            save.mutate({ id: editing?.id ?? null, input }, { onSuccess: () => setEditing(undefined) })
          }
        />
      )}
      {confirm.dialog({ busy: remove.isPending })}
    </Section>
  );
}

function TestSection() {
  const [message, setMessage] = useState("");
  const test = useTestExtraction();
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (message.trim() !== "") test.mutate(message);
  };
  const result = test.data;
  return (
    <Section id="grouping-test-heading" title="Test a message">
      <Stack component="form" onSubmit={handleSubmit} noValidate sx={{ gap: 1 }}>
        <TextField
          label="Pager message"
          multiline
          minRows={2}
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          slotProps={{ htmlInput: { maxLength: 2000 } }}
        />
        <Box>
          <Button type="submit" variant="outlined" disabled={test.isPending || message.trim() === ""}>
            Test
          </Button>
        </Box>
      </Stack>
      {test.isError && (
        <Alert severity="error" sx={{ mt: 1 }}>
          {test.error.message}
        </Alert>
      )}
      {result && (
        <Box role="status" aria-label="Test result" sx={{ mt: 1 }}>
          <Typography variant="body2">
            {result.job_number ? `Job number: ${result.job_number}` : "No job number found: not grouped"}
          </Typography>
          {result.matched_by && (
            <Typography variant="body2">
              {result.matched_by === "built-in"
                ? "Found by: the built-in job-number patterns"
                : `Found by: pattern “${result.matched_by}”`}
            </Typography>
          )}
          <Typography variant="body2">Message type: {result.type}</Typography>
          <Typography variant="body2">Displayed as: {result.display_text}</Typography>
        </Box>
      )}
    </Section>
  );
}

/**
 * The Message Grouping tab (issue 12): grouping on or off and its windows, the admin's job-number
 * patterns (create, edit, enable, priority, delete after confirmation), and a test box that shows the
 * job number found in a message and which rule or pattern found it.
 */
export function GroupingTab() {
  return (
    <Box component="section" aria-labelledby="grouping-heading">
      <Typography id="grouping-heading" variant="h6" component="h2" sx={{ mb: 2 }}>
        Message Grouping
      </Typography>
      <SettingsSection />
      <PatternsSection />
      <TestSection />
    </Box>
  );
}
