import { OTP_LENGTH, sanitizeCodeInput } from "@turnout/domain";
import { TextInput } from "../../ui/text-input";

/** A 6-digit code input: numeric keypad, SMS autofill (one-time-code), digits only. */
export function CodeField({
  label,
  value,
  onChange,
  disabled,
  helperText,
  autoFocus,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  disabled?: boolean;
  helperText?: string;
  autoFocus?: boolean;
}) {
  return (
    <TextInput
      label={label}
      value={value}
      onChange={(event) => onChange(sanitizeCodeInput(event.target.value))}
      disabled={disabled}
      helperText={helperText}
      autoFocus={autoFocus}
      fullWidth
      required
      htmlInput={{
        inputMode: "numeric",
        autoComplete: "one-time-code",
        pattern: "[0-9]*",
        maxLength: OTP_LENGTH,
        style: { fontSize: 24, letterSpacing: "0.4em", textAlign: "center" },
      }}
    />
  );
}
