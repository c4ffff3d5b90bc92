import { extractCodeInput, OTP_LENGTH } from "@turnout/domain";
import type { ClipboardEvent } from "react";
import { TextInput } from "../../ui/text-input";

/**
 * A 6-digit code input: numeric keypad, SMS autofill (one-time-code), digits only. Pasting a whole
 * SMS yields its code. No maxLength on the input: the browser would cut a pasted SMS to its first
 * 6 characters ('Turnou') before any of this code saw it.
 */
export function CodeField({
  label,
  value,
  onChange,
  disabled,
  helperText,
  autoFocus,
  describedBy,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  disabled?: boolean;
  helperText?: string;
  autoFocus?: boolean;
  describedBy?: string;
}) {
  const handlePaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = extractCodeInput(event.clipboardData.getData("text"));
    // A whole code replaces what is there; a fragment is inserted where the caret is, as usual.
    if (pasted.length === OTP_LENGTH) {
      event.preventDefault();
      onChange(pasted);
    }
  };

  return (
    <TextInput
      label={label}
      value={value}
      onChange={(event) => onChange(extractCodeInput(event.target.value))}
      disabled={disabled}
      helperText={helperText}
      autoFocus={autoFocus}
      describedBy={describedBy}
      fullWidth
      required
      htmlInput={{
        inputMode: "numeric",
        autoComplete: "one-time-code",
        pattern: "[0-9]*",
        onPaste: handlePaste,
        style: { fontSize: 24, letterSpacing: "0.4em", textAlign: "center" },
      }}
    />
  );
}
