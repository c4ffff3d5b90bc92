import { errors, jwtVerify, SignJWT } from "jose";

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

/** Verifies a session token; returns its claims, "expired", or "invalid". */
export async function verifySessionToken(
  secret: Uint8Array,
  token: string,
): Promise<{ userId: number; sessionId: string } | "expired" | "invalid"> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ["HS256"] });
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || userId <= 0 || typeof payload.sid !== "string") return "invalid";
    return { userId, sessionId: payload.sid };
  } catch (err) {
    return err instanceof errors.JWTExpired ? "expired" : "invalid";
  }
}
