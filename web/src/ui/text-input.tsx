import FormControl from "@mui/material/FormControl";
import FormHelperText from "@mui/material/FormHelperText";
import InputLabel from "@mui/material/InputLabel";
import OutlinedInput from "@mui/material/OutlinedInput";
import { type ChangeEvent, type InputHTMLAttributes, type ReactNode, useId } from "react";

/**
 * An outlined text field, put together as MUI's TextField does for a plain input: label, input and
 * helper text wired by ids (label `for`, `aria-describedby`). TextField itself imports Select, Menu
 * and Popover for its `select` mode, ~11 kB gzip the login screen would download and never use.
 */
export function TextInput({
  label,
  value,
  onChange,
  helperText,
  error = false,
  disabled = false,
  required = false,
  fullWidth = false,
  type,
  autoFocus,
  describedBy,
  htmlInput,
}: {
  label: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  helperText?: ReactNode;
  error?: boolean;
  disabled?: boolean;
  required?: boolean;
  fullWidth?: boolean;
  type?: string;
  autoFocus?: boolean;
  /** Ids of other text that describes the field (read out with it when it takes focus). */
  describedBy?: string;
  /** Attributes of the `<input>` itself (inputMode, autoComplete, pattern, ...). */
  htmlInput?: InputHTMLAttributes<HTMLInputElement>;
}) {
  const id = useId();
  const helperTextId = helperText ? `${id}-helper-text` : undefined;
  const descriptionIds = [describedBy, helperTextId].filter(Boolean).join(" ") || undefined;
  return (
    // Focus in blue (secondary), as the theme sets for TextField: a red outline reads as an error.
    <FormControl
      color="secondary"
      variant="outlined"
      error={error}
      disabled={disabled}
      required={required}
      fullWidth={fullWidth}
    >
      <InputLabel htmlFor={id} id={`${id}-label`}>
        {label}
      </InputLabel>
      <OutlinedInput
        id={id}
        label={label}
        type={type}
        value={value}
        onChange={onChange}
        autoFocus={autoFocus}
        aria-describedby={descriptionIds}
        slotProps={{ input: htmlInput }}
      />
      {helperText ? <FormHelperText id={helperTextId}>{helperText}</FormHelperText> : null}
    </FormControl>
  );
}
