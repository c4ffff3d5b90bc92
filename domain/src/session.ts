import { TOKEN_MIN_REMAINING_SECONDS } from "./constants.js";

const BASE64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Decodes base64url (or plain base64) to bytes; returns null on a character or length that cannot occur. */
function decodeBase64Url(input: string): number[] | null {
  const text = input.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  if (text.length % 4 === 1) return null;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = BASE64URL_ALPHABET.indexOf(char);
    if (value < 0) return null;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return bytes;
}

/** Decodes UTF-8 bytes to text; returns null when they are not valid UTF-8. */
function decodeUtf8(bytes: number[]): string | null {
  try {
    return decodeURIComponent(bytes.map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""));
  } catch {
    return null;
  }
}

/** Reads the JSON payload (middle part) of a token without verifying it; null when malformed. */
export function decodeTokenPayload(token: string): { exp?: number; [k: string]: unknown } | null {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => p === "")) return null;
  const bytes = decodeBase64Url(parts[1]!);
  if (!bytes) return null;
  const json = decodeUtf8(bytes);
  if (json === null) return null;
  try {
    const payload: unknown = JSON.parse(json);
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return null;
    return payload as { exp?: number; [k: string]: unknown };
  } catch {
    return null;
  }
}

/** Seconds from nowMs until the token's exp (negative once expired, may be fractional); null without exp. */
export function secondsUntilExpiry(token: string, nowMs: number): number | null {
  const exp = decodeTokenPayload(token)?.exp;
  if (typeof exp !== "number" || !Number.isFinite(exp)) return null;
  return exp - nowMs / 1000;
}

/**
 * Tells whether a stored session counts as valid: token, user and agency stored, token expiring more
 * than 300 s from now. A login result may carry no agency (SPEC 3: a user not yet assigned to one, such
 * as a bootstrap admin), so an agency stored as `null` counts as stored; only a missing entry fails.
 */
export function isStoredSessionValid(
  stored: { token?: string | null; user?: unknown; agency?: unknown },
  nowMs: number,
): boolean {
  const { token, user, agency } = stored;
  if (typeof token !== "string" || token === "") return false;
  if (user === undefined || user === null || agency === undefined) return false;
  const remaining = secondsUntilExpiry(token, nowMs);
  return remaining !== null && remaining > TOKEN_MIN_REMAINING_SECONDS;
}
