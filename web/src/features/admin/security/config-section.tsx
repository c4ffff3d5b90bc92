import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { securityQueries, useUpdateSecurityConfig } from "./queries";
import { Section } from "./section";
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

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
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
    <Dialog open onClose={onClose} aria-labelledby="security-config-title" fullWidth maxWidth="sm">
      <form onSubmit={handleSubmit} noValidate>
        <DialogTitle id="security-config-title">{`Edit ${entry.key}`}</DialogTitle>
        <DialogContent>
          <Stack sx={{ gap: 2, pt: 1 }}>
            {update.isError && <Alert severity="error">{update.error.message}</Alert>}
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
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={update.isPending}>
            Save
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/** Every security setting with its description and the value in force; each can be edited. */
export function ConfigSection() {
  const config = useQuery(securityQueries.config());
  const [editing, setEditing] = useState<SecurityConfigEntry | null>(null);
  return (
    <Section id="security-config-heading" title="Configuration">
      {config.isPending && <CircularProgress aria-label="Loading security configuration" />}
      {config.isError && <Alert severity="error">{config.error.message}</Alert>}
      {config.data && (
        <TableContainer>
          <Table size="small" aria-label="Security configuration">
            <TableHead>
              <TableRow>
                <TableCell>Setting</TableCell>
                <TableCell>Description</TableCell>
                <TableCell>Value</TableCell>
                <TableCell>Default</TableCell>
                <TableCell>Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {config.data.map((entry) => (
                <TableRow key={entry.key}>
                  <TableCell sx={{ fontFamily: "monospace" }}>{entry.key}</TableCell>
                  <TableCell>{entry.description}</TableCell>
                  <TableCell>{entry.value}</TableCell>
                  <TableCell>{entry.default_value ?? "—"}</TableCell>
                  <TableCell>
                    <Button size="small" onClick={() => setEditing(entry)} aria-label={`Edit ${entry.key}`}>
                      Edit
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {editing && <ConfigDialog entry={editing} onClose={() => setEditing(null)} />}
    </Section>
  );
}
