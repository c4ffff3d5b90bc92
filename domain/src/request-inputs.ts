import { z } from "zod/mini";
import { OTP_LENGTH } from "./constants.js";
import { isWellFormedCode } from "./otp.js";
import { isPlausibleAuPhone, normalizePhone } from "./phone.js";

// The request fields the server validates, kept apart from the phone, code and device rules: the
// web app's login screen uses those rules, and this way it loads without zod.

/** A phone number as a request carries it: required, normalised (SPEC 5), and plausible. */
export const phoneInputSchema = z
  .pipe(
    z
      .string("Phone number is required")
      .check(
        z.trim(),
        z.minLength(1, "Phone number is required"),
        z.maxLength(32, "Phone number is too long"),
      ),
    z.transform(normalizePhone),
  )
  .check(z.refine(isPlausibleAuPhone, "Please enter a valid phone number"));

/** A one-time or activation code as a request carries it: exactly 6 digits. */
export const codeInputSchema = z
  .string("Code is required")
  .check(z.trim(), z.refine(isWellFormedCode, `Code must be exactly ${OTP_LENGTH} digits`));

/** Bounded text field of the device info. */
const infoText = z.string().check(z.maxLength(200));

/** Device info sent as JSON in the X-Device-Info header with every request (SPEC 3). */
export const deviceInfoSchema = z.object({
  deviceId: z.string().check(z.trim(), z.minLength(1), z.maxLength(128)),
  device: infoText,
  browser: infoText,
  os: infoText,
  screenResolution: infoText,
  timezone: infoText,
  language: infoText,
  platform: infoText,
});
/** Device info as sent by the web app. */
export type DeviceInfo = z.output<typeof deviceInfoSchema>;
