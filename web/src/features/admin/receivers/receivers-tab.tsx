import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { durationText, RECEIVER_STATE_LABELS, type ReceiverState } from "@turnout/domain";
import { type FormEvent, useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import { errorText } from "../agencies/error-text";
import {
  useCreateReceiver,
  useDeleteReceiver,
  useNewReceiverKey,
  useReceivers,
  useRevokeReceiverKey,
} from "./queries";
import type { IssuedKey, Receiver } from "./receivers-api";

const STATE_COLORS: Record<ReceiverState, "default" | "success" | "warning" | "error"> = {
  unknown: "default",
  ok: "success",
  late: "warning",
  quiet: "warning",
  down: "error",
};

/** '12 s ago', or 'never'. */
function ago(iso: string | null, now: number): string {
  return iso === null ? "never" : `${durationText(now - Date.parse(iso))} ago`;
}

/** Pages heard per hour over the last day, as a small line; its label says the figures. */
export function Sparkline({ values }: { values: readonly number[] }) {
  const width = 96;
  const height = 24;
  const peak = Math.max(0, ...values);
  const max = Math.max(1, peak);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map(
    (v, i) => `${(i * step).toFixed(1)},${(height - (v / max) * (height - 2) - 1).toFixed(1)}`,
  );
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <Box
      component="svg"
      role="img"
      aria-label={`${total} pages in the last ${values.length} hours, at most ${peak} in an hour`}
      viewBox={`0 0 ${width} ${height}`}
      sx={{ width, height, display: "block", color: "primary.main" }}
    >
      <polyline points={points.join(" ")} fill="none" stroke="currentColor" strokeWidth={1.5} />
    </Box>
  );
}

/** The key, shown once after it is issued, to copy into the receiver's settings. */
function IssuedKeyDialog({
  issued,
  onClose,
}: {
  issued: { name: string; key: IssuedKey } | null;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={issued !== null}
      onClose={onClose}
      aria-labelledby="issued-key-title"
      maxWidth="sm"
      fullWidth
    >
      <DialogTitle id="issued-key-title">Key for {issued?.name}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          Copy this key into the receiver's settings (TURNOUT_INGEST_KEY) now: it is shown only once.
        </DialogContentText>
        <TextField
          label="Ingest key"
          value={issued?.key.key ?? ""}
          fullWidth
          slotProps={{ input: { readOnly: true } }}
          onFocus={(event) => event.target.select()}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} variant="contained">
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function secondsField(text: string): number | null {
  return /^\d+$/.test(text.trim()) ? Number(text) : null;
}

/** Registers a receiver: name, location, expected capcodes and its timing. */
function AddReceiverDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (name: string, key: IssuedKey) => void;
}) {
  const create = useCreateReceiver();
  const [name, setName] = useState("");
  const [location, setLocation] = useState("");
  const [capcodes, setCapcodes] = useState("");
  const [heartbeat, setHeartbeat] = useState("60");
  const [downAfter, setDownAfter] = useState("600");
  const [quietAfter, setQuietAfter] = useState("");
  const valid =
    name.trim() !== "" &&
    secondsField(heartbeat) !== null &&
    secondsField(downAfter) !== null &&
    (quietAfter.trim() === "" || secondsField(quietAfter) !== null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    create.mutate(
      {
        name: name.trim(),
        location: location.trim() || null,
        expected_capcodes: capcodes
          .split(/[\s,]+/)
          .map((c) => c.trim())
          .filter(Boolean),
        heartbeat_interval_seconds: secondsField(heartbeat)!,
        down_after_seconds: secondsField(downAfter)!,
        quiet_after_seconds: quietAfter.trim() === "" ? null : secondsField(quietAfter),
      },
      {
        onSuccess: (created) => {
          onCreated(name.trim(), created.key);
          setName("");
          setLocation("");
          setCapcodes("");
          create.reset();
        },
      },
    );
  };
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="add-receiver-title" maxWidth="sm" fullWidth>
      <Box component="form" onSubmit={submit} noValidate>
        <DialogTitle id="add-receiver-title">Add receiver</DialogTitle>
        <DialogContent>
          <Stack sx={{ gap: 2, pt: 1 }}>
            {create.error && <Alert severity="error">{errorText(create.error)}</Alert>}
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              autoFocus
            />
            <TextField label="Location" value={location} onChange={(e) => setLocation(e.target.value)} />
            <TextField
              label="Expected capcodes"
              helperText="Separated by spaces or commas"
              value={capcodes}
              onChange={(e) => setCapcodes(e.target.value)}
            />
            <Stack direction="row" sx={{ gap: 2 }}>
              <TextField
                label="Heartbeat every (s)"
                value={heartbeat}
                onChange={(e) => setHeartbeat(e.target.value)}
                error={secondsField(heartbeat) === null}
              />
              <TextField
                label="Down after (s)"
                value={downAfter}
                onChange={(e) => setDownAfter(e.target.value)}
                error={secondsField(downAfter) === null}
              />
              <TextField
                label="Quiet after (s)"
                helperText="Empty: learned"
                value={quietAfter}
                onChange={(e) => setQuietAfter(e.target.value)}
              />
            </Stack>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={!valid || create.isPending}>
            Add
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

/** A receiver's keys: a new one (the others stay valid for a day), and revoking one. */
function KeysDialog({
  receiver,
  onClose,
  onIssued,
}: {
  receiver: Receiver | null;
  onClose: () => void;
  onIssued: (name: string, key: IssuedKey) => void;
}) {
  const newKey = useNewReceiverKey();
  const revoke = useRevokeReceiverKey();
  const now = Date.now();
  if (!receiver) return null;
  return (
    <Dialog open onClose={onClose} aria-labelledby="receiver-keys-title" maxWidth="sm" fullWidth>
      <DialogTitle id="receiver-keys-title">Keys of {receiver.name}</DialogTitle>
      <DialogContent>
        {(newKey.error || revoke.error) && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {errorText(newKey.error ?? revoke.error)}
          </Alert>
        )}
        <DialogContentText sx={{ mb: 1 }}>
          A new key leaves the others valid for 24 hours, so the receiver can be switched over without a gap.
        </DialogContentText>
        <Table size="small" aria-label="Keys">
          <TableHead>
            <TableRow>
              <TableCell>Key</TableCell>
              <TableCell>Last used</TableCell>
              <TableCell>Valid</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {receiver.keys.map((k) => (
              <TableRow key={k.id}>
                <TableCell sx={{ fontFamily: "monospace" }}>{k.key_prefix}…</TableCell>
                <TableCell>{ago(k.last_used_at, now)}</TableCell>
                <TableCell>
                  {k.revoked_at
                    ? "Revoked"
                    : !k.valid
                      ? "Expired"
                      : k.expires_at
                        ? `Until ${new Date(k.expires_at).toLocaleString()}`
                        : "Yes"}
                </TableCell>
                <TableCell align="right">
                  {k.valid && (
                    <Button
                      size="small"
                      color="error"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate({ id: receiver.id, keyId: k.id })}
                    >
                      Revoke
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="contained"
          disabled={newKey.isPending}
          onClick={() =>
            newKey.mutate(
              { id: receiver.id, graceHours: 24 },
              { onSuccess: (key) => onIssued(receiver.name, key) },
            )
          }
        >
          New key
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * The Receivers tab (issue 33): each receiver's state (live: read again every few seconds), last
 * heartbeat and page, pages per hour over the last day, spool depth, dead letters, version, and its
 * keys. Admins add receivers (the key is shown once), issue and revoke keys, and delete receivers.
 */
export function ReceiversTab() {
  const receivers = useReceivers();
  const remove = useDeleteReceiver();
  const [adding, setAdding] = useState(false);
  const [issued, setIssued] = useState<{ name: string; key: IssuedKey } | null>(null);
  const [keysOf, setKeysOf] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Receiver | null>(null);
  const now = receivers.dataUpdatedAt || Date.now();

  if (receivers.isPending) return <CircularProgress aria-label="Loading receivers" />;
  if (receivers.isError)
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => receivers.refetch()}>
            Retry
          </Button>
        }
      >
        Receivers could not be loaded: {errorText(receivers.error)}
      </Alert>
    );
  const rows = receivers.data;
  const keysReceiver = rows.find((r) => r.id === keysOf) ?? null;

  return (
    <Box>
      <Stack direction="row" sx={{ justifyContent: "space-between", alignItems: "center", mb: 2 }}>
        <Typography variant="h6" component="h2">
          Receivers
        </Typography>
        <Button startIcon={<AddIcon />} variant="contained" onClick={() => setAdding(true)}>
          Add receiver
        </Button>
      </Stack>
      <TableContainer>
        <Table size="small" aria-label="Receivers">
          <TableHead>
            <TableRow>
              <TableCell>Receiver</TableCell>
              <TableCell>State</TableCell>
              <TableCell>Last heartbeat</TableCell>
              <TableCell>Last page</TableCell>
              <TableCell>Pages per hour (24 h)</TableCell>
              <TableCell align="right">Spool</TableCell>
              <TableCell align="right">Dead letters</TableCell>
              <TableCell>Decoder</TableCell>
              <TableCell>Version</TableCell>
              <TableCell>Keys</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((r) => (
              <TableRow key={r.id} data-testid={`receiver-${r.id}`}>
                <TableCell>
                  <Typography variant="body2" sx={{ fontWeight: 600 }}>
                    {r.name}
                  </Typography>
                  {r.location && (
                    <Typography variant="caption" color="text.secondary">
                      {r.location}
                    </Typography>
                  )}
                </TableCell>
                <TableCell>
                  <Chip
                    size="small"
                    label={RECEIVER_STATE_LABELS[r.current_state]}
                    color={STATE_COLORS[r.current_state]}
                    aria-label={`State: ${RECEIVER_STATE_LABELS[r.current_state]}`}
                  />
                </TableCell>
                <TableCell>{ago(r.last_heartbeat_at ?? r.last_seen_at, now)}</TableCell>
                <TableCell>{ago(r.last_message_at, now)}</TableCell>
                <TableCell>
                  <Sparkline values={r.pages_per_hour} />
                </TableCell>
                <TableCell align="right">{r.spool_depth ?? "–"}</TableCell>
                <TableCell align="right">{r.dead_letters ?? "–"}</TableCell>
                <TableCell>{r.decoder ?? "–"}</TableCell>
                <TableCell>{r.version ?? "–"}</TableCell>
                <TableCell>
                  {r.kind === "legacy" ? (
                    <Typography variant="caption">INGEST_API_KEY</Typography>
                  ) : (
                    <Button size="small" onClick={() => setKeysOf(r.id)}>
                      {`${r.keys.filter((k) => k.valid).length} valid`}
                    </Button>
                  )}
                </TableCell>
                <TableCell align="right">
                  {r.kind !== "legacy" && (
                    <Button
                      size="small"
                      color="error"
                      onClick={() => setDeleting(r)}
                      aria-label={`Delete ${r.name}`}
                    >
                      Delete
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      <AddReceiverDialog
        open={adding}
        onClose={() => setAdding(false)}
        onCreated={(name, key) => {
          setAdding(false);
          setIssued({ name, key });
        }}
      />
      <KeysDialog
        receiver={keysReceiver}
        onClose={() => setKeysOf(null)}
        onIssued={(name, key) => setIssued({ name, key })}
      />
      <IssuedKeyDialog issued={issued} onClose={() => setIssued(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? "receiver"}?`}
        text="Its keys stop working at once. The alerts it heard keep saying so."
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error ? errorText(remove.error) : null}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
      />
    </Box>
  );
}
