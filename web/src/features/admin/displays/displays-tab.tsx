import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { errorText } from "../agencies/error-text";
import { AdminList } from "../data-view/admin-list";
import { FormDialog } from "../data-view/form-dialog";
import { FormTextField } from "../data-view/form-fields";
import {
  DISPLAY_NAME_MAX,
  type Display,
  type DisplayInput,
  type DisplayUnit,
  IDLE_MINUTES_DEFAULT,
  IDLE_MINUTES_MAX,
} from "./displays-api";
import {
  useCreateDisplay,
  useDisplays,
  useDisplayUnits,
  usePairDisplay,
  useRemoveDisplay,
  useUnpairDisplay,
} from "./queries";

interface Draft {
  unit: string;
  name: string;
  idle: string;
}

function draftErrors(draft: Draft): Partial<Record<keyof Draft, string>> {
  const errors: Partial<Record<keyof Draft, string>> = {};
  if (draft.unit === "") errors.unit = "Choose the unit whose jobs the screen shows.";
  if (draft.name.trim() === "") errors.name = "Give the display a name.";
  const idle = Number(draft.idle);
  if (!/^\d+$/.test(draft.idle.trim()) || idle < 1 || idle > IDLE_MINUTES_MAX)
    errors.idle = `A whole number of minutes from 1 to ${IDLE_MINUTES_MAX}.`;
  return errors;
}

/** A new display: its unit, its name, and after how long without a new job the board shows the clock. */
function AddDisplayDialog({
  units,
  busy,
  error,
  onCancel,
  onSave,
}: {
  units: readonly DisplayUnit[];
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onSave: (input: DisplayInput) => void;
}) {
  const [draft, setDraft] = useState<Draft>({ unit: "", name: "", idle: String(IDLE_MINUTES_DEFAULT) });
  const [submitted, setSubmitted] = useState(false);
  const errors = draftErrors(draft);
  const shown = submitted ? errors : {};
  const set = (field: keyof Draft) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));
  const handleSubmit = () => {
    setSubmitted(true);
    if (Object.keys(errors).length > 0) return;
    onSave({ unit_id: Number(draft.unit), name: draft.name.trim(), idle_minutes: Number(draft.idle) });
  };
  return (
    <FormDialog
      open
      title="Add display"
      submitLabel="Add display"
      error={error}
      busy={busy}
      onSubmit={handleSubmit}
      onClose={onCancel}
    >
      <TextField
        select
        label="Unit"
        required
        value={draft.unit}
        onChange={(event) => set("unit")(event.target.value)}
        error={Boolean(shown.unit)}
        helperText={shown.unit ?? (units.length === 0 ? "No units yet: add one under Agencies." : " ")}
      >
        {units.map((unit) => (
          <MenuItem key={unit.id} value={String(unit.id)}>
            {unit.name} ({unit.agency_name})
          </MenuItem>
        ))}
      </TextField>
      <FormTextField
        label="Display name"
        required
        value={draft.name}
        onValue={set("name")}
        fieldError={shown.name}
        hint="Where the screen is, e.g. Engine bay TV."
        slotProps={{ htmlInput: { maxLength: DISPLAY_NAME_MAX } }}
      />
      <FormTextField
        label="Idle clock after (minutes)"
        value={draft.idle}
        onValue={set("idle")}
        fieldError={shown.idle}
        hint="The clock and the last jobs show once the newest job is this old."
        slotProps={{ htmlInput: { inputMode: "numeric" } }}
      />
    </FormDialog>
  );
}

/** The code a display's screen shows, typed by the admin; case, spaces and dashes do not matter. */
const codeOf = (text: string) => text.toUpperCase().replace(/[\s-]/g, "");
const CODE_PATTERN = /^[A-Z0-9]{6}$/;

function PairDialog({
  display,
  busy,
  error,
  onCancel,
  onPair,
}: {
  display: Display;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onPair: (code: string) => void;
}) {
  const [code, setCode] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const invalid = !CODE_PATTERN.test(codeOf(code));
  const handleSubmit = () => {
    setSubmitted(true);
    if (!invalid) onPair(codeOf(code));
  };
  return (
    <FormDialog
      open
      title={`Pair ${display.name}`}
      submitLabel="Pair"
      error={error}
      busy={busy}
      onSubmit={handleSubmit}
      onClose={onCancel}
    >
      <Typography variant="body2" color="text.secondary">
        {display.paired
          ? "The screen showing this display now is signed out, and the one showing the code takes its place."
          : "Enter the code the screen shows at /board."}
      </Typography>
      <TextField
        label="Code on the screen"
        required
        autoFocus
        value={code}
        onChange={(event) => setCode(event.target.value)}
        error={submitted && invalid}
        helperText={submitted && invalid ? "The code has 6 letters and digits, as the screen shows it." : " "}
        slotProps={{ htmlInput: { maxLength: 20, spellCheck: false, autoCapitalize: "characters" } }}
      />
    </FormDialog>
  );
}

const seenText = (iso: string | null) => (iso ? new Date(iso).toLocaleString("en-AU") : "Never");

/**
 * Station displays (issue 34): a display shows one unit's jobs on a screen in the station. Open
 * /board on the screen, then enter the code it shows here.
 */
export function DisplaysTab() {
  const displays = useDisplays();
  const units = useDisplayUnits();
  const create = useCreateDisplay();
  const pair = usePairDisplay();
  const unpair = useUnpairDisplay();
  const remove = useRemoveDisplay();
  const confirm = useConfirmation();
  const [adding, setAdding] = useState(false);
  const [pairing, setPairing] = useState<Display | null>(null);

  const openAdd = () => {
    create.reset();
    setAdding(true);
  };
  const openPair = (display: Display) => {
    pair.reset();
    setPairing(display);
  };
  const askUnpair = (display: Display) => {
    unpair.reset();
    confirm.ask({
      title: "Sign the screen out?",
      text: `The screen showing ${display.name} goes back to a pairing code at once. The display stays, to pair again.`,
      confirmLabel: "Sign out",
      onConfirm: () => unpair.mutate(display.id, { onSuccess: confirm.close }),
    });
  };
  const askRemove = (display: Display) => {
    remove.reset();
    confirm.ask({
      title: "Remove display?",
      text: `Remove ${display.name}? Its screen goes back to a pairing code at once.`,
      confirmLabel: "Remove",
      onConfirm: () => remove.mutate(display.id, { onSuccess: confirm.close }),
    });
  };
  const confirmError = unpair.error ?? remove.error;

  return (
    <Box>
      <Stack direction="row" sx={{ justifyContent: "space-between", alignItems: "center", mb: 1 }}>
        <Typography variant="h6" component="h2">
          Station displays
        </Typography>
        <Button startIcon={<AddIcon />} variant="contained" onClick={openAdd}>
          Add display
        </Button>
      </Stack>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        A display shows one unit's current job, who is responding and the map on a screen in the station. Open{" "}
        <strong>{`${window.location.origin}/board`}</strong> on the screen (full screen, kept on), then pair
        it here with the code it shows. A display reads only its unit's jobs and answers, and is no one's
        device.
      </Typography>
      {units.isError && (
        <Alert severity="error" sx={{ mb: 1 }}>
          The units could not be loaded: {errorText(units.error)}
        </Alert>
      )}
      <AdminList
        query={displays}
        loadingLabel="Loading displays"
        emptyText="No displays yet."
        errorText={(error) => `The displays could not be loaded: ${errorText(error)}`}
        label="Displays"
        outlined
        rowKey={(display) => display.id}
        columns={[
          { header: "Display", cell: (display) => display.name },
          { header: "Unit", cell: (display) => display.unit_name ?? "—" },
          { header: "Screen", cell: (display) => (display.paired ? "Paired" : "Not paired") },
          { header: "Idle clock after", cell: (display) => `${display.idle_minutes} min` },
          { header: "Last seen", cell: (display) => seenText(display.last_seen_at) },
        ]}
        actions={[
          {
            label: "Pair",
            ariaLabel: (display) => `Pair ${display.name}`,
            variant: (display) => (display.paired ? "text" : "outlined"),
            onClick: openPair,
          },
          {
            label: "Sign out",
            ariaLabel: (display) => `Sign out the screen of ${display.name}`,
            showIf: (display) => display.paired,
            onClick: askUnpair,
          },
          {
            label: "Remove",
            color: "error",
            ariaLabel: (display) => `Remove ${display.name}`,
            onClick: askRemove,
          },
        ]}
      />
      {adding && (
        <AddDisplayDialog
          units={units.data ?? []}
          busy={create.isPending}
          error={create.isError ? errorText(create.error) : null}
          onCancel={() => setAdding(false)}
          onSave={(input) => create.mutate(input, { onSuccess: () => setAdding(false) })}
        />
      )}
      {pairing && (
        <PairDialog
          display={pairing}
          busy={pair.isPending}
          error={pair.isError ? errorText(pair.error) : null}
          onCancel={() => setPairing(null)}
          onPair={(code) => pair.mutate({ id: pairing.id, code }, { onSuccess: () => setPairing(null) })}
        />
      )}
      {confirm.dialog({
        busy: unpair.isPending || remove.isPending,
        error: confirmError ? errorText(confirmError) : null,
      })}
    </Box>
  );
}
