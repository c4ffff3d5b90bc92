import { randomUUID, webcrypto } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { derivedKey } from "./derived-keys.js";

export type TokenClaims = { userId: number; sessionId: string; expiresAt: Date };

/** Signs a session token (HS256): `sub` user id, `sid` device-session id, `exp` in seconds. */
export async function signSessionToken(secret: Uint8Array, claims: TokenClaims): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(claims.userId))
    .setIssuedAt()
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(secret);
}

/**
 * The secret as an HMAC key, imported once per secret: given the raw bytes, jose imports a WebCrypto
 * key at every verification, a fifth of a signed-in request's CPU (bench/results/page-building.md).
 */
const verifyKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();

function verifyKey(secret: Uint8Array): Promise<webcrypto.CryptoKey> {
  let key = verifyKeys.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    verifyKeys.set(secret, key);
  }
  return key;
}

/** Verifies a session token; returns its claims, "expired", or "invalid". */
export async function verifySessionToken(
  secret: Uint8Array,
  token: string,
): Promise<{ userId: number; sessionId: string } | "expired" | "invalid"> {
  try {
    const { payload } = await jwtVerify(token, await verifyKey(secret), { algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || userId <= 0 || typeof payload.sid !== "string") return "invalid";
    return { userId, sessionId: payload.sid };
  } catch (err) {
    return err instanceof errors.JWTExpired ? "expired" : "invalid";
  }
}

const evictionKey = (secret: Uint8Array) => derivedKey(secret, "session-eviction");
const recoveryKey = (secret: Uint8Array) => derivedKey(secret, "recovery");

/** How long the choice of a session to sign out may be made after the code was verified. */
export const EVICTION_TOKEN_SECONDS = 15 * 60;

/**
 * The proof, handed out with a 409 session_limit once the code was right, that this device may choose
 * which of the user's sessions to sign out (POST /api/sessions/force-logout `eviction_token`).
 */
export async function signEvictionToken(
  secret: Uint8Array,
  userId: number,
  deviceId: string,
): Promise<string> {
  return new SignJWT({ typ: "evict", did: deviceId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(userId))
    .setIssuedAt()
    .setExpirationTime(`${EVICTION_TOKEN_SECONDS}s`)
    .sign(evictionKey(secret));
}

/** Whether `token` is a live eviction proof for this user and device. */
export async function verifyEvictionToken(
  secret: Uint8Array,
  token: string,
  userId: number,
  deviceId: string,
): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, evictionKey(secret), { algorithms: ["HS256"] });
    return payload.typ === "evict" && payload.sub === String(userId) && payload.did === deviceId;
  } catch {
    return false;
  }
}

/** How long a recovery link works. */
export const RECOVERY_TOKEN_SECONDS = 30 * 60;

/**
 * A one-time sign-in for `phone`, signed with the server's secret by the operator's command
 * (`npm run admin -- recover`): it needs no database, so it works while the server holds the embedded
 * one. Its id (`jti`) is recorded when it is used, so it works once.
 */
export async function signRecoveryToken(secret: Uint8Array, phone: string): Promise<string> {
  return new SignJWT({ typ: "recovery", phone })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${RECOVERY_TOKEN_SECONDS}s`)
    .sign(recoveryKey(secret));
}

/** The phone and id of a live recovery token, or null. */
export async function verifyRecoveryToken(
  secret: Uint8Array,
  token: string,
): Promise<{ phone: string; tokenId: string } | null> {
  try {
    const { payload } = await jwtVerify(token, recoveryKey(secret), { algorithms: ["HS256"] });
    if (payload.typ !== "recovery" || typeof payload.phone !== "string" || typeof payload.jti !== "string")
      return null;
    return { phone: payload.phone, tokenId: payload.jti };
  } catch {
    return null;
  }
}
