import { type CountryCode, getCountries, parsePhoneNumberFromString } from "libphonenumber-js/max";

/**
 * Where Turnout may send an SMS (issue 27). Sign-in codes that strangers can trigger are the classic
 * SMS-pumping target (OWASP: premium-rate, satellite and revenue-share ranges), so an SMS goes only to
 * a mobile number of an allowed country: Australia by default, others only when an operator lists them
 * (SMS_ALLOWED_COUNTRIES). Numbers are checked against libphonenumber's metadata (numbering plans and
 * number types), never a hand-written pattern.
 */

/** The countries SMS goes to unless an operator lists others. */
export const DEFAULT_SMS_COUNTRIES: readonly CountryCode[] = ["AU"];

/** Why a destination is refused. */
export type SmsDestinationRefusal = "invalid" | "non_geographic" | "country_not_allowed" | "not_mobile";

export type SmsDestinationCheck =
  | { ok: true; phone: string; country: CountryCode }
  | { ok: false; reason: SmsDestinationRefusal; message: string };

/** Number types that reach a handset by SMS. Some plans (US, CA) cannot tell mobiles from landlines. */
const SMS_TYPES = new Set(["MOBILE", "FIXED_LINE_OR_MOBILE"]);

/** Whether `code` is an ISO 3166 country code libphonenumber knows (a valid SMS_ALLOWED_COUNTRIES entry). */
export function isKnownCountry(code: string): code is CountryCode {
  return (getCountries() as string[]).includes(code);
}

function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["en-AU"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** 'Australian mobile numbers' or 'mobile numbers in Australia and New Zealand'. */
export function describeSmsCountries(allowed: readonly string[]): string {
  if (allowed.length === 1 && allowed[0] === "AU") return "Australian mobile numbers";
  const names = allowed.map(countryName);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `mobile numbers in ${list}`;
}

/**
 * Checks that `phone` (E.164, as normalizePhone gives it) is a mobile number of one of `allowed`.
 * Refuses numbers that are not valid in their numbering plan, international networks and satellite
 * services (+881, +882, +883: no country), premium-rate and other non-mobile types, and countries
 * not listed. Each refusal carries a message a person can act on.
 */
export function checkSmsDestination(
  phone: string,
  allowed: readonly string[] = DEFAULT_SMS_COUNTRIES,
): SmsDestinationCheck {
  const onlyTo = `Turnout sends SMS only to ${describeSmsCountries(allowed)}.`;
  const parsed = /^\+\d{6,15}$/.test(phone) ? parsePhoneNumberFromString(phone) : undefined;
  if (!parsed?.isValid()) {
    return { ok: false, reason: "invalid", message: `This is not a valid mobile number. ${onlyTo}` };
  }
  const country = parsed.country;
  if (!country) {
    return {
      ok: false,
      reason: "non_geographic",
      message: `SMS cannot be sent to international network, satellite or premium-rate numbers. ${onlyTo}`,
    };
  }
  if (!allowed.includes(country)) {
    return { ok: false, reason: "country_not_allowed", message: onlyTo };
  }
  if (!SMS_TYPES.has(parsed.getType() ?? "")) {
    return { ok: false, reason: "not_mobile", message: `This number cannot receive SMS. ${onlyTo}` };
  }
  return { ok: true, phone: parsed.number, country };
}

/** How many trailing digits a destination prefix leaves out: a block of 10,000 numbers. */
const PREFIX_HIDDEN_DIGITS = 4;

/**
 * The number block an SMS goes to (the E.164 number without its last 4 digits, e.g. +6141234): SMS
 * pumping walks consecutive numbers of one range, so the per-prefix budget counts per block.
 */
export function smsPrefixOf(phone: string): string {
  const digits = phone.replace(/[^\d+]/g, "");
  return digits.slice(0, Math.max(1, digits.length - PREFIX_HIDDEN_DIGITS));
}
