import { OTP_LENGTH } from "./constants.js";

/** Keeps only the digits of typed code input, at most OTP_LENGTH of them. */
export function sanitizeCodeInput(raw: string): string {
  return raw.replace(/\D/g, "").slice(0, OTP_LENGTH);
}

/** Tells whether the login 'Verify Code' button is enabled: the code is non-empty. */
export function canSubmitLoginCode(code: string): boolean {
  return code.trim() !== "";
}

/** Tells whether the 'Verify Account' button is enabled: exactly OTP_LENGTH digits. */
export function canSubmitActivationCode(code: string): boolean {
  return isWellFormedCode(code);
}

/** Server-side check that a value is a string of exactly OTP_LENGTH ASCII digits. */
export function isWellFormedCode(code: unknown): code is string {
  return typeof code === "string" && code.length === OTP_LENGTH && /^[0-9]+$/.test(code);
}
