import AddIcon from "@mui/icons-material/Add";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { RECEIVER_STATE_LABELS, type ReceiverState } from "@turnout/domain";
import { useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { useNow } from "../../../ui/use-now";
import { errorText } from "../agencies/error-text";
import { AdminList } from "../data-view/admin-list";
import type { Column } from "../data-view/data-table";
import { NoticeAlert } from "../data-view/list-dialog";
import { useDeleteReceiver, useReceivers } from "./queries";
import { ReceiverFormDialog } from "./receiver-form-dialog";
import { ago, IssuedKeyDialog, ReceiverKeysDialog } from "./receiver-keys-dialog";
import type { IssuedKey, Receiver } from "./receivers-api";

/** The 'ago' times move on between reads of the list. */
const CLOCK_TICK_MS = 5_000;

const STATE_COLORS: Record<ReceiverState, "default" | "success" | "warning" | "error"> = {
  unknown: "default",
  ok: "success",
  late: "warning",
  quiet: "warning",
  down: "error",
};

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

const dash = (value: number | string | null) => value ?? "–";

function receiverColumns(now: number, onKeys: (r: Receiver) => void): Column<Receiver>[] {
  return [
    {
      header: "Receiver",
      cell: (r) => (
        <>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {r.name}
          </Typography>
          {r.location && (
            <Typography variant="caption" color="text.secondary">
              {r.location}
            </Typography>
          )}
        </>
      ),
    },
    {
      header: "State",
      cell: (r) => (
        <Chip
          size="small"
          label={RECEIVER_STATE_LABELS[r.current_state]}
          color={STATE_COLORS[r.current_state]}
          aria-label={`State: ${RECEIVER_STATE_LABELS[r.current_state]}`}
        />
      ),
    },
    { header: "Last heartbeat", cell: (r) => ago(r.last_heartbeat_at ?? r.last_seen_at, now) },
    { header: "Last page", cell: (r) => ago(r.last_message_at, now) },
    { header: "Pages per hour (24 h)", cell: (r) => <Sparkline values={r.pages_per_hour} /> },
    { header: "Spool", cell: (r) => dash(r.spool_depth), align: "right" },
    { header: "Dead letters", cell: (r) => dash(r.dead_letters), align: "right" },
    { header: "Decoder", cell: (r) => dash(r.decoder) },
    { header: "Version", cell: (r) => dash(r.version) },
    {
      header: "Keys",
      cell: (r) =>
        r.kind === "legacy" ? (
          <Typography variant="caption">INGEST_API_KEY</Typography>
        ) : (
          <Button size="small" onClick={() => onKeys(r)} aria-label={`Keys of ${r.name}`}>
            {`${r.keys.filter((k) => k.valid).length} valid`}
          </Button>
        ),
    },
  ];
}

/**
 * The Receivers tab (issue 33): each receiver's state (live: the admin channel says when one changes),
 * last heartbeat and page, pages per hour over the last day, spool depth, dead letters, version, and
 * its keys. Admins add receivers (the key is shown once), change them, issue and revoke keys, and
 * delete receivers.
 */
export function ReceiversTab() {
  const receivers = useReceivers();
  const remove = useDeleteReceiver();
  const confirm = useConfirmation();
  // The form keeps its receiver while it fades out.
  const [form, setForm] = useState<{ open: boolean; receiver: Receiver | null }>({
    open: false,
    receiver: null,
  });
  const closeForm = () => setForm((current) => ({ ...current, open: false }));
  const [issued, setIssued] = useState<{ name: string; key: IssuedKey } | null>(null);
  const [keysOf, setKeysOf] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const now = Math.max(useNow(CLOCK_TICK_MS), receivers.dataUpdatedAt);
  // Dialogs show the latest copy once a change (or the live channel) reloads the list.
  const fresh = (id: number | null | undefined) => receivers.data?.find((r) => r.id === id) ?? null;

  return (
    <Box component="section" aria-labelledby="receivers-heading">
      <Box sx={{ display: "flex", alignItems: "center", gap: 1, mb: 2 }}>
        <Typography id="receivers-heading" variant="h6" component="h2" sx={{ flexGrow: 1 }}>
          Receivers
        </Typography>
        <Button
          startIcon={<AddIcon aria-hidden="true" />}
          variant="contained"
          onClick={() => setForm({ open: true, receiver: null })}
        >
          Add receiver
        </Button>
      </Box>
      <NoticeAlert notice={notice} onClose={() => setNotice(null)} sx={{ mb: 1 }} />
      <AdminList
        query={receivers}
        loadingLabel="Loading receivers"
        errorText={(error) => `Receivers could not be loaded: ${errorText(error)}`}
        emptyText="No receivers yet."
        outlined
        label="Receivers"
        rowKey={(r) => r.id}
        columns={receiverColumns(now, (r) => setKeysOf(r.id))}
        actionsAlign="right"
        actions={[
          {
            label: "Edit",
            ariaLabel: (r) => `Edit ${r.name}`,
            onClick: (r) => {
              setNotice(null);
              setForm({ open: true, receiver: r });
            },
          },
          {
            label: "Delete",
            color: "error",
            ariaLabel: (r) => `Delete ${r.name}`,
            showIf: (r) => r.kind !== "legacy",
            onClick: (r) => {
              remove.reset();
              confirm.ask({
                title: `Delete ${r.name}?`,
                text: "Its keys stop working at once. The alerts it heard keep saying so.",
                confirmLabel: "Delete",
                onConfirm: () =>
                  remove.mutate(r.id, {
                    onSuccess: () => {
                      confirm.close();
                      setNotice(`${r.name} deleted.`);
                    },
                  }),
              });
            },
          },
        ]}
      />
      <ReceiverFormDialog
        open={form.open}
        receiver={form.receiver && (fresh(form.receiver.id) ?? form.receiver)}
        onClose={closeForm}
        onCreated={(name, key) => {
          closeForm();
          setIssued({ name, key });
        }}
        onSaved={(text) => {
          closeForm();
          setNotice(text);
        }}
      />
      <ReceiverKeysDialog
        receiver={fresh(keysOf)}
        now={now}
        onClose={() => setKeysOf(null)}
        onIssued={(name, key) => setIssued({ name, key })}
      />
      <IssuedKeyDialog issued={issued} onClose={() => setIssued(null)} />
      {confirm.dialog({ busy: remove.isPending, error: remove.error ? errorText(remove.error) : null })}
    </Box>
  );
}
