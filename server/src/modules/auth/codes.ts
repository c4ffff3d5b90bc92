import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { OTP_LENGTH } from "@turnout/domain";

/** A uniformly random numeric code of OTP_LENGTH digits (leading zeros kept). */
export function generateCode(): string {
  return String(randomInt(0, 10 ** OTP_LENGTH)).padStart(OTP_LENGTH, "0");
}

/** Keyed hash of a code, bound to its user and purpose, so a stored hash is useless elsewhere. */
export function hashCode(secret: Uint8Array, userId: number, purpose: string, code: string): string {
  return createHmac("sha256", secret).update(`${userId}:${purpose}:${code}`).digest("hex");
}

/** Compares a code with a stored hash in constant time. */
export function codeMatches(
  secret: Uint8Array,
  userId: number,
  purpose: string,
  code: string,
  stored: string,
): boolean {
  const a = Buffer.from(hashCode(secret, userId, purpose, code), "hex");
  const b = Buffer.from(stored, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
