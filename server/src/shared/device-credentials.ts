import type { DeviceInfo } from "@turnout/domain";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { errors, jwtVerify, SignJWT } from "jose";
import type { Database } from "../db/client.js";
import { deviceCredentials, users } from "../db/schema.js";
import { notFound } from "../errors.js";
import { derivedKey } from "./derived-keys.js";
import { describeDevice } from "./sessions.js";

/**
 * Device credentials (issue 27): after a sign-in the app keeps a signed credential naming a row here,
 * bound to the user and the phone it signed in with. Presented with the next code request
 * (`X-Device-Credential`), it puts the device on its own allowance: strangers can neither use it up
 * nor void the code it asks for. A credential no longer counts once it is revoked (by the user, an
 * admin, or a newer credential for the same device), has expired, or the account's phone changed.
 */

/** The header the app sends its credential in. */
export const DEVICE_CREDENTIAL_HEADER = "x-device-credential";

type CredentialRow = typeof deviceCredentials.$inferSelect;

/** A device that proved it signed in before with this phone. */
export type TrustedDevice = { credentialId: string; userId: number };

const keyOf = (secret: Uint8Array) => derivedKey(secret, "device-credential");

/**
 * Issues a credential for a device that has just signed in (replacing the one it had, if any) and
 * returns the signed token the app keeps.
 */
export async function issueDeviceCredential(
  db: Database,
  secret: Uint8Array,
  input: {
    userId: number;
    phone: string;
    deviceId: string;
    deviceInfo: Partial<DeviceInfo>;
    userAgent: string | null;
    days: number;
  },
): Promise<string> {
  const expiresAt = new Date(Date.now() + input.days * 86_400_000);
  await db
    .update(deviceCredentials)
    .set({ revokedAt: new Date(), revokedBy: "replaced" })
    .where(
      and(
        eq(deviceCredentials.userId, input.userId),
        eq(deviceCredentials.deviceId, input.deviceId),
        isNull(deviceCredentials.revokedAt),
      ),
    );
  const [row] = await db
    .insert(deviceCredentials)
    .values({
      userId: input.userId,
      phone: input.phone,
      deviceId: input.deviceId,
      deviceInfo: input.deviceInfo,
      userAgent: input.userAgent?.slice(0, 500) ?? null,
      expiresAt,
    })
    .returning({ id: deviceCredentials.id });
  return new SignJWT({ cid: row!.id, typ: "device" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(String(input.userId))
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(keyOf(secret));
}

/**
 * The device a credential proves, when it is genuine, live, and bound to `phone` (still the account's
 * phone); null otherwise, and the caller is treated as any stranger.
 */
export async function verifyDeviceCredential(
  db: Database,
  secret: Uint8Array,
  token: string | null | undefined,
  phone: string,
): Promise<TrustedDevice | null> {
  if (!token || token.length > 2048) return null;
  let claims: { sub?: string; cid?: unknown; typ?: unknown };
  try {
    ({ payload: claims } = await jwtVerify(token, keyOf(secret), { algorithms: ["HS256"] }));
  } catch (error) {
    if (error instanceof errors.JOSEError) return null;
    throw error;
  }
  const userId = Number(claims.sub);
  if (claims.typ !== "device" || typeof claims.cid !== "string" || !Number.isSafeInteger(userId)) return null;
  if (!/^[0-9a-f-]{36}$/i.test(claims.cid)) return null;
  const [row] = await db
    .select({ id: deviceCredentials.id, userPhone: users.phone })
    .from(deviceCredentials)
    .innerJoin(users, eq(users.id, deviceCredentials.userId))
    .where(
      and(
        eq(deviceCredentials.id, claims.cid),
        eq(deviceCredentials.userId, userId),
        eq(deviceCredentials.phone, phone),
        isNull(deviceCredentials.revokedAt),
        gt(deviceCredentials.expiresAt, new Date()),
      ),
    );
  if (!row || row.userPhone !== phone) return null;
  return { credentialId: row.id, userId };
}

/** Marks a credential used now and extends it by `days` (each sign-in keeps a device recognised). */
export async function refreshDeviceCredential(db: Database, credentialId: string, days: number) {
  await db
    .update(deviceCredentials)
    .set({ lastUsedAt: new Date(), expiresAt: new Date(Date.now() + days * 86_400_000) })
    .where(eq(deviceCredentials.id, credentialId));
}

/** A user's recognised devices, newest use first. */
export async function listDeviceCredentials(db: Database, userId: number): Promise<CredentialRow[]> {
  return db
    .select()
    .from(deviceCredentials)
    .where(
      and(
        eq(deviceCredentials.userId, userId),
        isNull(deviceCredentials.revokedAt),
        gt(deviceCredentials.expiresAt, new Date()),
      ),
    )
    .orderBy(desc(deviceCredentials.lastUsedAt));
}

/**
 * Revokes one of a user's recognised devices (`by` says who), or all of them when `credentialId` is
 * absent. Throws 404 when the one named is not the user's or is revoked already. Returns how many.
 */
export async function revokeDeviceCredentials(
  db: Database,
  userId: number,
  by: "user" | "admin",
  credentialId?: string,
): Promise<number> {
  const rows = await db
    .update(deviceCredentials)
    .set({ revokedAt: new Date(), revokedBy: by })
    .where(
      and(
        eq(deviceCredentials.userId, userId),
        isNull(deviceCredentials.revokedAt),
        credentialId ? eq(deviceCredentials.id, credentialId) : undefined,
      ),
    )
    .returning({ id: deviceCredentials.id });
  if (credentialId && rows.length === 0) throw notFound("Device not found");
  return rows.length;
}

/** The wire shape of a recognised device. */
export function presentDeviceCredential(row: CredentialRow) {
  return {
    id: row.id,
    device_info: describeDevice(row.deviceInfo, row.userAgent),
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
