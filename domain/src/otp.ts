import { OTP_LENGTH } from "./constants.js";

/** Keeps only the digits of typed code input, at most OTP_LENGTH of them. */
export function sanitizeCodeInput(raw: string): string {
  return raw.replace(/\D/g, "").slice(0, OTP_LENGTH);
}

// A run of exactly OTP_LENGTH digits, not part of a longer number. No lookbehind: Safari before
// 16.4 cannot parse it, and this module loads on the sign-in screen.
const WHOLE_CODE = new RegExp(`(?:^|[^0-9])([0-9]{${OTP_LENGTH}})(?![0-9])`);

/**
 * Reads a code from what reached the code field, typed or pasted: the first run of exactly
 * OTP_LENGTH digits (the code inside a whole pasted SMS, whatever other numbers it carries), else
 * its digits as sanitizeCodeInput keeps them.
 */
export function extractCodeInput(raw: string): string {
  return WHOLE_CODE.exec(raw)?.[1] ?? sanitizeCodeInput(raw);
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
