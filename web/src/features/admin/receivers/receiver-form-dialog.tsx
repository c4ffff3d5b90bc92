import Stack from "@mui/material/Stack";
import { useQuery } from "@tanstack/react-query";
import { durationText, RECEIVER_LIMITS, receiverFieldsSchema, UNMAPPED_AGENCY } from "@turnout/domain";
import { useState } from "react";
import { errorText } from "../agencies/error-text";
import { agenciesQueryOptions } from "../agencies/queries";
import { FormDialog } from "../data-view/form-dialog";
import { AgenciesField, FormTextField, serverFieldErrors } from "../data-view/form-fields";
import { useCreateReceiver, useUpdateReceiver } from "./queries";
import type { IssuedKey, Receiver, ReceiverInput } from "./receivers-api";
// English messages for the zod issues this form shows.
import "../../../app/zod-messages";

type Field = keyof ReceiverInput;
type FieldErrors = Partial<Record<Field, string>>;
const FIELDS: readonly Field[] = [
  "name",
  "location",
  "expected_capcodes",
  "expected_agency_ids",
  "heartbeat_interval_seconds",
  "down_after_seconds",
  "quiet_after_seconds",
];

/** The form's text, as typed. */
interface Draft {
  name: string;
  location: string;
  capcodes: string;
  agencyIds: number[];
  heartbeat: string;
  downAfter: string;
  quietAfter: string;
}

const draftOf = (receiver: Receiver | null): Draft => ({
  name: receiver?.name ?? "",
  location: receiver?.location ?? "",
  capcodes: receiver?.expected_capcodes.join(", ") ?? "",
  agencyIds: receiver?.expected_agency_ids ?? [],
  heartbeat: String(receiver?.heartbeat_interval_seconds ?? 60),
  downAfter: String(receiver?.down_after_seconds ?? 600),
  quietAfter: receiver?.quiet_after_seconds == null ? "" : String(receiver.quiet_after_seconds),
});

/** A whole number of seconds as typed; anything else goes to the schema as is, which refuses it. */
const secondsOf = (text: string): unknown => (/^\d+$/.test(text.trim()) ? Number(text) : text.trim());

/** What the draft asks for; the schema (the server's own) then says what is wrong with it. */
function inputOf(draft: Draft) {
  return {
    name: draft.name,
    location: draft.location.trim() || null,
    expected_capcodes: draft.capcodes
      .split(/[\s,]+/)
      .map((c) => c.trim())
      .filter(Boolean),
    expected_agency_ids: draft.agencyIds,
    heartbeat_interval_seconds: secondsOf(draft.heartbeat),
    down_after_seconds: secondsOf(draft.downAfter),
    quiet_after_seconds: draft.quietAfter.trim() === "" ? null : secondsOf(draft.quietAfter),
  };
}

/** The server names fields as `name`, `expected_capcodes.2` and so on: each goes to its input. */
function fieldErrorsOf(issues: { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? "") as Field;
    if (FIELDS.includes(field)) errors[field] ??= issue.message;
  }
  return errors;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of `input` that differ from the receiver as it is: what a change sends. */
function changesOf(receiver: Receiver, input: ReceiverInput): Partial<ReceiverInput> {
  const before: ReceiverInput = {
    name: receiver.name,
    location: receiver.location,
    expected_capcodes: receiver.expected_capcodes,
    expected_agency_ids: receiver.expected_agency_ids,
    heartbeat_interval_seconds: receiver.heartbeat_interval_seconds,
    down_after_seconds: receiver.down_after_seconds,
    quiet_after_seconds: receiver.quiet_after_seconds,
  };
  return Object.fromEntries(FIELDS.filter((f) => !same(before[f], input[f])).map((f) => [f, input[f]]));
}

interface ReceiverFormProps {
  open: boolean;
  /** The receiver to change; null registers a new one. */
  receiver: Receiver | null;
  onClose: () => void;
  /** A new receiver's first key, shown once. */
  onCreated: (name: string, key: IssuedKey) => void;
  /** Said once a change is saved. */
  onSaved: (notice: string) => void;
}

/**
 * Registers a receiver (`receiver` null) or changes one: name, location, the capcodes and agencies it
 * is expected to hear, its heartbeat interval, when it counts as down, and its quiet period (empty:
 * learned from its history). Checked with the server's schema before sending.
 */
export function ReceiverFormDialog(props: ReceiverFormProps) {
  // Each opening mounts a fresh form from the receiver as it is now; closing keeps it mounted while
  // the dialog fades out.
  const [openings, setOpenings] = useState(0);
  const [wasOpen, setWasOpen] = useState(props.open);
  if (props.open !== wasOpen) {
    setWasOpen(props.open);
    if (props.open) setOpenings((count) => count + 1);
  }
  return <ReceiverForm key={openings} {...props} />;
}

function ReceiverForm({ open, receiver, onClose, onCreated, onSaved }: ReceiverFormProps) {
  const [draft, setDraft] = useState(() => draftOf(receiver));
  const [errors, setErrors] = useState<FieldErrors>({});
  const create = useCreateReceiver();
  const update = useUpdateReceiver();
  const save = receiver ? update : create;
  const agencies = useQuery({ ...agenciesQueryOptions(), enabled: open });
  const choices = (agencies.data ?? []).filter((a) => a.code !== UNMAPPED_AGENCY.code);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((current) => ({ ...current, [key]: value }));

  // handleSubmit cleared the fields' errors before sending: a refusal sets the server's.
  const refused = (error: unknown) => setErrors(serverFieldErrors(error, FIELDS));

  const handleSubmit = () => {
    const checked = receiverFieldsSchema.safeParse(inputOf(draft));
    const found = checked.success ? {} : fieldErrorsOf(checked.error.issues);
    setErrors(found);
    create.reset();
    update.reset();
    if (!checked.success) return;
    const input: ReceiverInput = {
      name: checked.data.name,
      location: checked.data.location ?? null,
      expected_capcodes: [...new Set(checked.data.expected_capcodes ?? [])],
      expected_agency_ids: draft.agencyIds,
      heartbeat_interval_seconds: checked.data.heartbeat_interval_seconds ?? 60,
      down_after_seconds: checked.data.down_after_seconds ?? 600,
      quiet_after_seconds: checked.data.quiet_after_seconds ?? null,
    };
    if (!receiver) {
      create.mutate(input, { onSuccess: (created) => onCreated(input.name, created.key), onError: refused });
      return;
    }
    const changes = changesOf(receiver, input);
    if (Object.keys(changes).length === 0) {
      onClose();
      return;
    }
    update.mutate(
      { id: receiver.id, changes },
      { onSuccess: () => onSaved(`${input.name} saved.`), onError: refused },
    );
  };

  // A refusal the fields cannot show (an unknown agency, the server down) is said above them.
  const failure = save.isError && !Object.values(errors).some(Boolean) ? errorText(save.error) : null;
  const learned = receiver?.learned_quiet_seconds;
  const { heartbeatInterval, downAfter, quietAfter } = RECEIVER_LIMITS;

  return (
    <FormDialog
      open={open}
      title={receiver ? `Edit ${receiver.name}` : "Add receiver"}
      error={failure}
      submitLabel={receiver ? "Save" : "Add"}
      busy={save.isPending}
      onSubmit={handleSubmit}
      onClose={onClose}
    >
      <FormTextField
        label="Name"
        value={draft.name}
        onValue={(value) => set("name", value)}
        fieldError={errors.name}
        required
        autoFocus
        slotProps={{ htmlInput: { maxLength: 100 } }}
      />
      <FormTextField
        label="Location"
        value={draft.location}
        onValue={(value) => set("location", value)}
        fieldError={errors.location}
        slotProps={{ htmlInput: { maxLength: 200 } }}
      />
      <FormTextField
        label="Expected capcodes"
        value={draft.capcodes}
        onValue={(value) => set("capcodes", value)}
        fieldError={errors.expected_capcodes}
        hint="Separated by spaces or commas"
      />
      <AgenciesField
        label="Expected agencies"
        options={choices}
        value={choices.filter((a) => draft.agencyIds.includes(a.id))}
        onChange={(value) =>
          set(
            "agencyIds",
            value.map((a) => a.id),
          )
        }
        loading={agencies.isPending}
        failed={agencies.isError}
        fieldError={errors.expected_agency_ids}
        hint="A down receiver that is an agency's only one is critical"
      />
      <Stack direction={{ xs: "column", sm: "row" }} sx={{ gap: 2 }}>
        <FormTextField
          label="Heartbeat every (s)"
          value={draft.heartbeat}
          onValue={(value) => set("heartbeat", value)}
          fieldError={errors.heartbeat_interval_seconds}
          hint={`${heartbeatInterval.min} to ${heartbeatInterval.max}`}
          slotProps={{ htmlInput: { inputMode: "numeric" } }}
        />
        <FormTextField
          label="Down after (s)"
          value={draft.downAfter}
          onValue={(value) => set("downAfter", value)}
          fieldError={errors.down_after_seconds}
          hint={`${downAfter.min} to ${downAfter.max}`}
          slotProps={{ htmlInput: { inputMode: "numeric" } }}
        />
        <FormTextField
          label="Quiet after (s)"
          value={draft.quietAfter}
          onValue={(value) => set("quietAfter", value)}
          fieldError={errors.quiet_after_seconds}
          hint={
            learned
              ? `Empty: learned (now ${durationText(learned * 1000)})`
              : `Empty: learned; else ${quietAfter.min} to ${quietAfter.max}`
          }
          slotProps={{ htmlInput: { inputMode: "numeric" } }}
        />
      </Stack>
    </FormDialog>
  );
}
