import { createHmac } from "node:crypto";

/**
 * A key of its own for one use of the server's secret (JWT_SECRET or the generated one): device
 * credentials, eviction choices, recovery links and proof-of-work challenges are each signed with a
 * different key, so none of them can stand in for a session token or for one another.
 */
export function derivedKey(secret: Uint8Array, purpose: string): Uint8Array {
  return createHmac("sha256", secret).update(`turnout:${purpose}`).digest();
}

/** The same key as text (for libraries that take a string secret). */
export function derivedSecret(secret: Uint8Array, purpose: string): string {
  return Buffer.from(derivedKey(secret, purpose)).toString("base64url");
}
