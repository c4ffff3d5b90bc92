import { maskPhone } from "@turnout/domain";
import pino, { type DestinationStream, type Logger } from "pino";

// Phone numbers and codes are personal data: they never reach the logs in full.
const PHONE_IN_TEXT = /\+?\d[\d\s-]{6,}\d/g;

/** Replaces anything that looks like a phone number in free text with its masked form. */
export function maskPhonesInText(text: string): string {
  return text.replace(PHONE_IN_TEXT, (m) => maskPhone(m.replace(/[\s-]/g, "")));
}

/** The one logger: JSON lines, with credentials, phones and codes redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "req.headers.cookie",
          'req.headers["x-api-key"]',
          "req.headers.apikey",
          "*.phone",
          "*.otp_code",
          "*.activation_code",
          "*.code",
          "*.token",
        ],
        censor: "[redacted]",
      },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url ? maskPhonesInText(decodeURIComponentSafe(req.url)) : req.url,
          ip: req.ip,
        }),
      },
    },
    destination,
  );
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
