import { PHONE_COUNTRY_PREFIX } from "./constants.js";

/** Normalises a typed phone number to Australian international format (SPEC 5, branch by branch). */
export function normalizePhone(raw: string): string {
  const cleaned = raw.replace(/[^\d+]/g, "");
  if (!/\d/.test(cleaned)) return "";
  if (cleaned.startsWith(PHONE_COUNTRY_PREFIX)) return cleaned;
  if (cleaned.startsWith("61")) return `+${cleaned}`;
  if (cleaned.startsWith("0")) return `${PHONE_COUNTRY_PREFIX}${cleaned.slice(1)}`;
  if (/^4(\d{9}|\d{7})$/.test(cleaned)) return `${PHONE_COUNTRY_PREFIX}${cleaned}`;
  if (cleaned.startsWith("+")) return cleaned;
  return `+${cleaned}`;
}

/** Checks the login phone field (required, non-blank) and returns the normalised number or a message. */
export function validateLoginPhone(
  raw: string,
): { ok: true; phone: string } | { ok: false; message: string } {
  const trimmed = raw.trim();
  if (trimmed === "") return { ok: false, message: "Phone number is required" };
  const phone = normalizePhone(trimmed);
  if (phone === "") return { ok: false, message: "Please enter a valid phone number" };
  return { ok: true, phone };
}

/** Tells whether a normalised phone looks real: '+' and 8 to 15 digits; +61 numbers have exactly 9 after +61. */
export function isPlausibleAuPhone(normalised: string): boolean {
  if (!/^\+\d{8,15}$/.test(normalised)) return false;
  if (normalised.startsWith(PHONE_COUNTRY_PREFIX)) return /^\+61\d{9}$/.test(normalised);
  return true;
}

/** Masks a phone for logs, keeping the country prefix, first digit and last 3 digits ("+614•••••678"). */
export function maskPhone(phone: string): string {
  const au = /^\+61(\d)(\d+)(\d{3})$/.exec(phone);
  if (au) return `+61${au[1]}${"•".repeat(au[2]!.length)}${au[3]}`;
  const digits = phone.replace(/\D/g, "");
  const plus = phone.trim().startsWith("+") ? "+" : "";
  if (digits.length < 7) return `${plus}${"•".repeat(digits.length)}`;
  return `${plus}${digits.slice(0, 2)}${"•".repeat(digits.length - 5)}${digits.slice(-3)}`;
}
