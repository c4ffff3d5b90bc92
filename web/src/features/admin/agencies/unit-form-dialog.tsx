import TextField from "@mui/material/TextField";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { unitInputSchema } from "@turnout/domain";
import { useState } from "react";
import { isApiError } from "../../../api/errors";
import { fieldErrorsFrom } from "../../../api/field-errors";
import type { PostcodeMatch } from "../../../api/places";
import { LocationField, placeLabel } from "../../../ui/location-field";
import { useLocationSearch } from "../../../ui/use-location-search";
import { FormDialog } from "../data-view/form-dialog";
import { errorText } from "./error-text";
import { agencyAdminKeys } from "./queries";
import { type AdminUnit, type UnitFields, unitsApi } from "./units-api";
// English messages for the zod issues this form shows.
import "../../../app/zod-messages";

type FieldErrors = Partial<Record<"name" | "code" | "place", string>>;

/** A unit's saved place as the location search holds one; null when it has none. */
export function placeOfUnit(unit: AdminUnit | null): PostcodeMatch | null {
  if (!unit?.postcode || !unit.suburb || !unit.state) return null;
  return { postcode: unit.postcode, suburb: unit.suburb, state_abbreviation: unit.state };
}

/** The server names `postcode`, `suburb` and `state`; all three belong to the one place field. */
function serverFieldErrors(body: Record<string, unknown> | undefined): FieldErrors {
  const errors: FieldErrors = {};
  for (const [field, message] of Object.entries(fieldErrorsFrom(body))) {
    const name = field.split(".")[0] ?? "";
    if (name === "name" || name === "code") errors[name] ??= message;
    else if (["postcode", "suburb", "state"].includes(name)) errors.place ??= message;
  }
  return errors;
}

interface UnitFormProps {
  open: boolean;
  agency: { id: number; name: string };
  unit: AdminUnit | null;
  onClose: () => void;
  onSaved: (message: string) => void;
}

/**
 * Adds a unit to an agency (`unit` null) or edits one: its name, optional short code, and its place
 * chosen with the registration screen's postcode-or-suburb search. Without a place the server places
 * the unit by its name when exactly one locality has that name.
 */
export function UnitFormDialog(props: UnitFormProps) {
  // Each opening mounts a fresh form, so it starts from the unit as it is now; closing keeps the
  // form mounted while the dialog fades out.
  const [openings, setOpenings] = useState(0);
  const [wasOpen, setWasOpen] = useState(props.open);
  if (props.open !== wasOpen) {
    setWasOpen(props.open);
    if (props.open) setOpenings((count) => count + 1);
  }
  return <UnitForm key={openings} {...props} />;
}

function UnitForm({ open, agency, unit, onClose, onSaved }: UnitFormProps) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(unit?.name ?? "");
  const [code, setCode] = useState(unit?.code ?? "");
  const place = useLocationSearch(placeOfUnit(unit));
  const [errors, setErrors] = useState<FieldErrors>({});

  const save = useMutation({
    mutationFn: (fields: UnitFields) =>
      unit ? unitsApi.updateUnit(unit.id, fields) : unitsApi.createUnit(agency.id, fields),
    onSuccess: (saved, fields) => {
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
      const where = placeOfUnit(saved);
      // The server placed it by its name: say where, so a wrong guess is noticed now.
      const guessed =
        fields.postcode === null && where ? ` Placed at ${placeLabel(where)} from its name.` : "";
      onSaved(`${unit ? "Unit saved" : `Unit ${saved.name} added`}.${guessed}`);
    },
    onError: (error) => {
      if (isApiError(error) && error.status === 400) setErrors(serverFieldErrors(error.body));
    },
  });

  const handleSubmit = () => {
    const chosen = place.chosen;
    const found: FieldErrors = {};
    if (!chosen && place.query.trim() !== "")
      found.place = "Choose a place from the matches, or clear the field to place the unit by its name.";
    const fields: UnitFields = {
      name: name.trim(),
      code: code.trim() === "" ? null : code.trim().toUpperCase(),
      postcode: chosen?.postcode ?? null,
      suburb: chosen?.suburb ?? null,
      state: chosen?.state_abbreviation ?? null,
    };
    // The rules the server applies (domain unitInputSchema), so the admin hears of a mistake at once.
    const checked = unitInputSchema.safeParse(fields);
    for (const issue of checked.success ? [] : checked.error.issues) {
      const field = String(issue.path[0] ?? "");
      if (field === "name" || field === "code") found[field] ??= issue.message;
      else found.place ??= issue.message;
    }
    setErrors(found);
    save.reset();
    if (Object.keys(found).length === 0) save.mutate(fields);
  };

  // A refusal the fields cannot show (a duplicate name, an unknown place) is said above them.
  const failure = save.isError && !Object.values(errors).some(Boolean) ? errorText(save.error) : null;

  return (
    <FormDialog
      open={open}
      title={unit ? `Edit unit ${unit.name}` : `New unit of ${agency.name}`}
      error={failure}
      submitLabel={unit ? "Save" : "Add unit"}
      busy={save.isPending || place.searching}
      onSubmit={handleSubmit}
      onClose={onClose}
    >
      <TextField
        label="Name"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          setErrors((current) => ({ ...current, name: undefined }));
        }}
        error={Boolean(errors.name)}
        helperText={errors.name ?? "The brigade, unit or group, e.g. Kangaroo Flat Fire Brigade"}
        required
        fullWidth
        autoFocus
        slotProps={{ htmlInput: { maxLength: 100 } }}
      />
      <TextField
        label="Code"
        value={code}
        onChange={(event) => {
          setCode(event.target.value);
          setErrors((current) => ({ ...current, code: undefined }));
        }}
        error={Boolean(errors.code)}
        helperText={errors.code ?? "Optional short name, e.g. KANG"}
        fullWidth
        slotProps={{ htmlInput: { maxLength: 32 } }}
      />
      <LocationField
        search={place}
        label="Place (postcode or suburb)"
        hint="Where the unit is based: members are offered the units nearest them first. Empty: placed by its name when that names a town."
        error={errors.place}
        pickerTitle="Select the unit's place"
      />
    </FormDialog>
  );
}
