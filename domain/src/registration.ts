import { z } from "zod/mini";
import { AU_STATE_CODES, SIGNUP_AGENCY_CODES } from "./constants.js";
import { phoneInputSchema } from "./request-inputs.js";
import { unitIdsSchema } from "./units.js";

/** Tells whether a registration reply means the phone is already registered. */
export function isDuplicatePhoneReply(message: string | null | undefined): boolean {
  const text = (message ?? "").toLowerCase();
  return text.includes("already exists") || text.includes("user with this phone number");
}

/** A required, trimmed, non-blank name field of at most 100 characters. */
const requiredText = (label: string) =>
  z
    .string(`${label} is required`)
    .check(
      z.trim(),
      z.minLength(1, `${label} is required`),
      z.maxLength(100, `${label} must be at most 100 characters`),
    );

/** Body of POST /auth/register; the phone comes out normalised (SPEC 3 and 5). */
export const registrationSchema = z.object({
  first_name: requiredText("First name"),
  last_name: requiredText("Last name"),
  phone: phoneInputSchema,
  user_agency: z.enum(SIGNUP_AGENCY_CODES, "Please select an agency"),
  postcode: z.string("Postcode is required").check(z.trim(), z.regex(/^\d{4}$/, "Postcode must be 4 digits")),
  town_name: requiredText("Town"),
  state_name: z.pipe(
    z.string("State is required").check(z.trim(), z.toUpperCase()),
    z.enum(AU_STATE_CODES, "Unknown state"),
  ),
  /** The member's brigades or units (issue 26), of the chosen agency; optional. */
  unit_ids: z.optional(unitIdsSchema),
});
/** A validated registration (phone normalised). */
export type RegistrationInput = z.output<typeof registrationSchema>;

/** Tells whether every required registration field is filled, so 'Create Account' is enabled. */
export function isRegistrationComplete(form: {
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  user_agency?: string | null;
  postcode?: string | null;
  town_name?: string | null;
}): boolean {
  const required = [
    form.first_name,
    form.last_name,
    form.phone,
    form.user_agency,
    form.postcode,
    form.town_name,
  ];
  return required.every((value) => typeof value === "string" && value.trim() !== "");
}

/** What a location-field value should trigger: nothing, a 4-digit postcode lookup, or a suburb text search. */
export function classifyLocationQuery(
  input: string,
): { kind: "none" } | { kind: "postcode"; postcode: string } | { kind: "text"; text: string } {
  const text = input.trim();
  if (text.length < 2) return { kind: "none" };
  if (/^\d+$/.test(text)) return text.length === 4 ? { kind: "postcode", postcode: text } : { kind: "none" };
  return text.length >= 3 ? { kind: "text", text } : { kind: "none" };
}
