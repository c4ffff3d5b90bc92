import Alert from "@mui/material/Alert";
import Autocomplete from "@mui/material/Autocomplete";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import {
  DEFAULT_MAX_DEVICE_SESSIONS,
  MAX_UNITS_PER_MEMBER,
  phoneInputSchema,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { type FormEvent, useId, useState } from "react";
import { AgenciesField, FormTextField, serverFieldErrors } from "../data-view/form-fields";
import {
  type UnitChoice,
  type UserEdit,
  useAgencyChoices,
  useCreateUser,
  useUnitChoices,
  useUpdateUser,
  useUserUnits,
} from "./queries";
import type { AdminUser, NewUser, UserAgency } from "./users-api";
// English messages for the zod issues this form shows.
import "../../../app/zod-messages";

/** The contract's bounds of a per-user session limit. */
const MAX_SESSIONS_MIN = 1;
const MAX_SESSIONS_MAX = 20;

type FieldName = "first_name" | "last_name" | "phone" | "max_sessions" | "agency_ids" | "unit_ids";
type FieldErrors = Partial<Record<FieldName, string>>;

interface Draft {
  first_name: string;
  last_name: string;
  phone: string;
  is_admin: boolean;
  max_sessions: string;
  agencies: UserAgency[];
}

function draftOf(user: AdminUser | null): Draft {
  return {
    first_name: user?.first_name ?? "",
    last_name: user?.last_name ?? "",
    phone: user?.phone ?? "",
    is_admin: user?.is_admin ?? false,
    max_sessions: user?.max_sessions === null || user === null ? "" : String(user.max_sessions),
    agencies: user?.agencies ?? [],
  };
}

type Checked =
  | { ok: true; first_name: string; last_name: string; phone: string; max_sessions: number | null }
  | { ok: false; errors: FieldErrors };

/** The same checks the server makes, so most mistakes are named before anything is sent. */
function check(draft: Draft): Checked {
  const errors: FieldErrors = {};
  const first_name = draft.first_name.trim();
  const last_name = draft.last_name.trim();
  if (first_name === "") errors.first_name = "First name is required";
  if (last_name === "") errors.last_name = "Last name is required";
  const phone = phoneInputSchema.safeParse(draft.phone);
  if (!phone.success) errors.phone = phone.error.issues[0]?.message ?? "Please enter a valid phone number";
  const limitText = draft.max_sessions.trim();
  const limit = limitText === "" ? null : Number(limitText);
  if (limit !== null && (!/^\d+$/.test(limitText) || limit < MAX_SESSIONS_MIN || limit > MAX_SESSIONS_MAX)) {
    errors.max_sessions = `A whole number from ${MAX_SESSIONS_MIN} to ${MAX_SESSIONS_MAX}, or blank for the default`;
  }
  if (Object.keys(errors).length > 0 || !phone.success) return { ok: false, errors };
  return { ok: true, first_name, last_name, phone: phone.data, max_sessions: limit };
}

/** The fields a server's refusal may name (`first_name`, `agency_ids.0` and so on), each under its input. */
const FIELD_NAMES: readonly FieldName[] = [
  "first_name",
  "last_name",
  "phone",
  "max_sessions",
  "agency_ids",
  "unit_ids",
];

function sameIds(a: { id: number }[], b: { id: number }[]): boolean {
  const left = a.map((item) => item.id).sort((x, y) => x - y);
  const right = b.map((item) => item.id).sort((x, y) => x - y);
  return left.length === right.length && left.every((id, index) => id === right[index]);
}

/** Only what the admin changed is sent: an unchanged phone is not re-checked, a list not rewritten. */
function editOf(
  user: AdminUser,
  draft: Draft,
  checked: Extract<Checked, { ok: true }>,
  units: { saved: UnitChoice[]; chosen: UnitChoice[] | null },
): UserEdit {
  const changes: UserEdit["changes"] = {};
  if (checked.first_name !== user.first_name) changes.first_name = checked.first_name;
  if (checked.last_name !== user.last_name) changes.last_name = checked.last_name;
  if (checked.phone !== user.phone) changes.phone = checked.phone;
  if (draft.is_admin !== user.is_admin) changes.is_admin = draft.is_admin;
  const edit: UserEdit = { changes };
  if (!sameIds(draft.agencies, user.agencies)) edit.agencyIds = draft.agencies.map((agency) => agency.id);
  if (units.chosen && !sameIds(units.chosen, units.saved)) edit.unitIds = units.chosen.map((unit) => unit.id);
  if (checked.max_sessions !== user.max_sessions) edit.maxSessions = checked.max_sessions;
  return edit;
}

/**
 * Add User (no user) or Edit User: names, phone (normalised as the domain says), admin, session
 * limit, agencies and units (issue 26). Field errors from the server's 400 land under their fields.
 */
export function UserFormDialog({
  open,
  user,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The user to edit; null adds a new one. */
  user: AdminUser | null;
  onClose: () => void;
  onSaved: (message: string) => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm">
      {/* Mounted per opening, so each one starts from the user as they are now. */}
      {open && <UserForm user={user} onClose={onClose} onSaved={onSaved} />}
    </Dialog>
  );
}

function UserForm({
  user,
  onClose,
  onSaved,
}: {
  user: AdminUser | null;
  onClose: () => void;
  onSaved: (message: string) => void;
}) {
  const formId = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(user));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const agencies = useAgencyChoices();
  const savedUnits = useUserUnits(user?.id ?? null);
  /** The units the admin chose; null until they touch the list (the saved ones show meanwhile). */
  const [chosenUnits, setChosenUnits] = useState<UnitChoice[] | null>(null);
  const [unitsWanted, setUnitsWanted] = useState(false);
  const unitChoices = useUnitChoices(agencies.data ?? [], unitsWanted);
  const createUser = useCreateUser();
  const updateUser = useUpdateUser();
  const busy = createUser.isPending || updateUser.isPending;
  // The placeholder for unmapped capcodes is no agency a person belongs to.
  const choices = (agencies.data ?? []).filter((agency) => agency.code !== UNMAPPED_AGENCY.code);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }));
    if (key in errors) setErrors((current) => ({ ...current, [key]: undefined }));
  };

  const saved: UnitChoice[] = user === null ? [] : (savedUnits.data ?? []);
  const units = chosenUnits ?? saved;
  // An existing user's units are only rewritten once known: a failed load leaves them untouched.
  const unitsReady = user === null || savedUnits.isSuccess;

  // The server assigns a unit's agency with it, and leaving an agency leaves its units: the form
  // shows both as they will be.
  const handleAgencies = (value: UserAgency[]) => {
    set("agencies", value);
    const kept = units.filter((unit) => value.some((agency) => agency.id === unit.agency_id));
    if (kept.length !== units.length) setChosenUnits(kept);
  };
  const handleUnits = (value: UnitChoice[]) => {
    setChosenUnits(value);
    if (errors.unit_ids) setErrors((current) => ({ ...current, unit_ids: undefined }));
    const missing = value
      .map((unit) => choices.find((agency) => agency.id === unit.agency_id))
      .filter((agency): agency is UserAgency => agency !== undefined)
      .filter((agency, index, all) => all.indexOf(agency) === index)
      .filter((agency) => !draft.agencies.some((mine) => mine.id === agency.id));
    if (missing.length > 0) set("agencies", [...draft.agencies, ...missing]);
  };
  const unitOptions = [
    ...unitChoices.choices,
    ...units.filter((u) => !unitChoices.choices.some((c) => c.id === u.id)),
  ].sort((a, b) => a.agency_name.localeCompare(b.agency_name) || a.name.localeCompare(b.name));

  const handleFailure = (error: unknown) => {
    setErrors(serverFieldErrors(error, FIELD_NAMES));
    setFailure(error instanceof Error ? error.message : "The user could not be saved.");
  };

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    const checked = check(draft);
    const tooManyUnits = units.length > MAX_UNITS_PER_MEMBER;
    if (!checked.ok || tooManyUnits) {
      setErrors({
        ...(checked.ok ? {} : checked.errors),
        ...(tooManyUnits ? { unit_ids: `Choose at most ${MAX_UNITS_PER_MEMBER} units` } : {}),
      });
      return;
    }
    setErrors({});
    const name = `${checked.first_name} ${checked.last_name}`;
    if (user === null) {
      const input: NewUser = {
        first_name: checked.first_name,
        last_name: checked.last_name,
        phone: checked.phone,
        is_admin: draft.is_admin,
        agency_ids: draft.agencies.map((agency) => agency.id),
      };
      if (checked.max_sessions !== null) input.max_sessions = checked.max_sessions;
      const unitIds = units.map((unit) => unit.id);
      createUser.mutate(
        { input, unitIds },
        {
          onSuccess: () => onSaved(`${name} was added and can sign in now.`),
          onError: handleFailure,
        },
      );
      return;
    }
    updateUser.mutate(
      { user, edit: editOf(user, draft, checked, { saved, chosen: unitsReady ? chosenUnits : null }) },
      { onSuccess: () => onSaved(`${name} was saved.`), onError: handleFailure },
    );
  };

  return (
    <>
      <DialogTitle>{user === null ? "Add User" : `Edit ${user.first_name} ${user.last_name}`}</DialogTitle>
      <DialogContent>
        <Stack component="form" id={formId} noValidate onSubmit={handleSubmit} spacing={2} sx={{ pt: 1 }}>
          {failure && <Alert severity="error">{failure}</Alert>}
          <Stack direction={{ xs: "column", sm: "row" }} spacing={2}>
            <FormTextField
              label="First name"
              value={draft.first_name}
              onValue={(value) => set("first_name", value)}
              fieldError={errors.first_name}
              required
              fullWidth
              autoFocus
            />
            <FormTextField
              label="Last name"
              value={draft.last_name}
              onValue={(value) => set("last_name", value)}
              fieldError={errors.last_name}
              required
              fullWidth
            />
          </Stack>
          <FormTextField
            label="Phone"
            type="tel"
            value={draft.phone}
            onValue={(value) => set("phone", value)}
            fieldError={errors.phone}
            hint="Australian mobile, e.g. 0412 345 678"
            required
            fullWidth
          />
          <AgenciesField
            label="Agencies"
            options={choices}
            value={draft.agencies}
            onChange={handleAgencies}
            loading={agencies.isPending}
            failed={agencies.isError}
            fieldError={errors.agency_ids}
          />
          <Autocomplete
            multiple
            disableCloseOnSelect
            options={unitOptions}
            value={units}
            onChange={(_event, value) => handleUnits(value)}
            onOpen={() => setUnitsWanted(true)}
            groupBy={(unit) => unit.agency_name}
            getOptionLabel={(unit) => (unit.code ? `${unit.name} (${unit.code})` : unit.name)}
            isOptionEqualToValue={(option, value) => option.id === value.id}
            loading={unitChoices.loading || (user !== null && savedUnits.isPending)}
            disabled={!unitsReady}
            renderInput={(params) => (
              <TextField
                {...params}
                label="Units"
                error={Boolean(errors.unit_ids) || savedUnits.isError || unitChoices.failed}
                helperText={
                  errors.unit_ids ??
                  (savedUnits.isError
                    ? "The user's units could not be loaded; they stay as they are."
                    : unitChoices.failed
                      ? "Some agencies' units could not be loaded."
                      : "Brigades or units: the member sees their jobs first. A unit's agency is assigned with it.")
                }
              />
            )}
          />
          <FormTextField
            label="Session limit"
            value={draft.max_sessions}
            onValue={(value) => set("max_sessions", value)}
            fieldError={errors.max_sessions}
            hint={`Devices signed in at once. Blank: the default (${DEFAULT_MAX_DEVICE_SESSIONS}).`}
            slotProps={{ htmlInput: { inputMode: "numeric" } }}
            fullWidth
          />
          <FormControlLabel
            control={
              <Switch checked={draft.is_admin} onChange={(event) => set("is_admin", event.target.checked)} />
            }
            label="Administrator"
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" form={formId} variant="contained" disabled={busy}>
          {user === null ? "Add User" : "Save"}
        </Button>
      </DialogActions>
    </>
  );
}
