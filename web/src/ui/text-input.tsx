import { type ChangeEvent, type InputHTMLAttributes, type ReactNode, useId } from "react";
import { classNames } from "./kit/class-names";
import "./kit/kit.css";

/**
 * A labelled, outlined text input as plain elements (kit.css), so the sign-in screen paints without
 * MUI (issue 31): label, input and helper text wired by ids (label `for`, `aria-describedby`), the
 * error state set on the input too (`aria-invalid`), a required field marked for readers by `required`.
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
  const { className, ...inputAttributes } = htmlInput ?? {};
  return (
    <div className={classNames("kit-field", error && "kit-field--error", fullWidth && "kit-field--full")}>
      <label htmlFor={id} id={`${id}-label`} className="kit-field__label">
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <input
        {...inputAttributes}
        id={id}
        className={classNames("kit-field__input", className)}
        type={type}
        value={value}
        onChange={onChange}
        // The field that takes the focus when its screen opens (the code after it was sent).
        // biome-ignore lint/a11y/noAutofocus: the screen's one field, as its subtitle says
        autoFocus={autoFocus}
        disabled={disabled}
        required={required}
        aria-invalid={error || undefined}
        aria-describedby={descriptionIds}
      />
      {helperText ? (
        <p id={helperTextId} className="kit-field__helper">
          {helperText}
        </p>
      ) : null}
    </div>
  );
}
