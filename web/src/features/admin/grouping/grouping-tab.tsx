import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FormEvent, type ReactNode, useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import type { GroupingPattern, GroupingSettingKey, GroupingSettings } from "./grouping-api";
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

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Paper component="section" variant="outlined" aria-labelledby={id} sx={{ p: 2, mb: 3 }}>
      <Typography id={id} variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

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
  const data: GroupingSettings | undefined = settings.data;
  return (
    <Section id="grouping-settings-heading" title="Settings">
      {settings.isPending && <CircularProgress aria-label="Loading grouping settings" />}
      {settings.isError && <Alert severity="error">{settings.error.message}</Alert>}
      {update.isError && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {update.error.message}
        </Alert>
      )}
      {data && (
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
  const [deleting, setDeleting] = useState<GroupingPattern | null>(null);

  const openEditor = (pattern: GroupingPattern | null) => {
    save.reset();
    setEditing(pattern);
  };

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
      {patterns.isPending && <CircularProgress aria-label="Loading patterns" />}
      {patterns.isError && <Alert severity="error">{patterns.error.message}</Alert>}
      {remove.isError && <Alert severity="error">{remove.error.message}</Alert>}
      {editing === undefined && save.isError && <Alert severity="error">{save.error.message}</Alert>}
      {patterns.data?.length === 0 && <Typography>No patterns of your own yet.</Typography>}
      {patterns.data && patterns.data.length > 0 && (
        <TableContainer>
          <Table size="small" aria-label="Patterns">
            <TableHead>
              <TableRow>
                <TableCell>Priority</TableCell>
                <TableCell>Name</TableCell>
                <TableCell>Pattern</TableCell>
                <TableCell>Description</TableCell>
                <TableCell>Enabled</TableCell>
                <TableCell>Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {patterns.data.map((pattern) => (
                <TableRow key={pattern.id}>
                  <TableCell>{pattern.priority}</TableCell>
                  <TableCell>{pattern.name}</TableCell>
                  <TableCell sx={{ fontFamily: "monospace", overflowWrap: "anywhere" }}>
                    {pattern.pattern}
                  </TableCell>
                  <TableCell>{pattern.description}</TableCell>
                  <TableCell>
                    <Switch
                      checked={pattern.is_active}
                      disabled={save.isPending}
                      onChange={(event) =>
                        save.mutate({ id: pattern.id, input: { is_active: event.target.checked } })
                      }
                      slotProps={{ input: { "aria-label": `${pattern.name} enabled` } }}
                    />
                  </TableCell>
                  <TableCell>
                    <Button
                      size="small"
                      onClick={() => openEditor(pattern)}
                      aria-label={`Edit ${pattern.name}`}
                    >
                      Edit
                    </Button>
                    <Button
                      size="small"
                      color="error"
                      onClick={() => setDeleting(pattern)}
                      aria-label={`Delete ${pattern.name}`}
                    >
                      Delete
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
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
      <ConfirmDialog
        open={deleting !== null}
        title="Delete pattern?"
        text={`Delete the pattern “${deleting?.name ?? ""}”? Messages already grouped stay as they are.`}
        confirmLabel="Delete"
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting.id, { onSettled: () => setDeleting(null) });
        }}
      />
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
