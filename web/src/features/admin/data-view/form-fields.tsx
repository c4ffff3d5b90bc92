import Autocomplete from "@mui/material/Autocomplete";
import TextField, { type TextFieldProps } from "@mui/material/TextField";
import type { ReactNode } from "react";
import { isApiError } from "../../../api/errors";
import { fieldErrorsFrom } from "../../../api/field-errors";

/**
 * A text field of an admin form: its error (the form's check or the server's) replaces the hint
 * below it and marks it red; `onValue` gets what was typed.
 */
export function FormTextField({
  fieldError,
  hint,
  onValue,
  ...props
}: Omit<TextFieldProps, "error" | "helperText" | "onChange"> & {
  fieldError?: string | undefined;
  hint?: ReactNode;
  onValue: (value: string) => void;
}) {
  return (
    <TextField
      {...props}
      onChange={(event) => onValue(event.target.value)}
      error={Boolean(fieldError)}
      helperText={fieldError ?? hint}
    />
  );
}

/**
 * The field errors of a server's 400 reply for the form's own fields: `agency_ids.0` goes to
 * `agency_ids`, and a field the form does not have is left to the message above the fields. Empty for
 * any other failure.
 */
export function serverFieldErrors<F extends string>(
  error: unknown,
  fields: readonly F[],
): Partial<Record<F, string>> {
  const errors: Partial<Record<F, string>> = {};
  if (!isApiError(error) || error.status !== 400) return errors;
  for (const [path, message] of Object.entries(fieldErrorsFrom(error.body))) {
    const field = path.split(".")[0] as F;
    if (fields.includes(field)) errors[field] ??= message;
  }
  return errors;
}

interface AgencyChoice {
  id: number;
  name: string;
  code: string;
}

/** Several agencies chosen by name and code; says so when they could not be loaded. */
export function AgenciesField<A extends AgencyChoice>({
  label,
  options,
  value,
  onChange,
  loading,
  failed,
  fieldError,
  hint,
}: {
  label: string;
  options: A[];
  value: A[];
  onChange: (value: A[]) => void;
  loading: boolean;
  failed: boolean;
  fieldError?: string | undefined;
  hint?: string;
}) {
  return (
    <Autocomplete
      multiple
      disableCloseOnSelect
      options={options}
      value={value}
      onChange={(_event, chosen) => onChange(chosen)}
      getOptionLabel={(agency) => `${agency.name} (${agency.code})`}
      isOptionEqualToValue={(option, chosen) => option.id === chosen.id}
      loading={loading}
      renderInput={(params) => (
        <TextField
          {...params}
          label={label}
          error={Boolean(fieldError) || failed}
          helperText={fieldError ?? (failed ? "The agencies could not be loaded." : hint)}
        />
      )}
    />
  );
}
