import {
  effectivePushMode,
  isAllowedPushHost,
  type PushAgencyMode,
  type PushSubscriptionInput,
  testPushNotification,
} from "@turnout/domain";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, pushAgencyModes, pushSubscriptions, userAgencies } from "../../db/schema.js";
import { badRequest, conflict } from "../../errors.js";
import { queueDevicePush } from "../../push/queue.js";
import type { Actor } from "../../shared/guard.js";
import { unitsOfUser } from "../../shared/units.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Where a subscription may send the server: https to a browser's push service, or to a host the
 * operator listed (PUSH_EXTRA_ENDPOINT_HOSTS; plain http only on loopback, for a local stand-in). Any
 * other URL is refused, so a member cannot make the server post to an address of their choosing.
 */
export function checkEndpoint(endpoint: string, extraHosts: readonly string[]): void {
  const url = new URL(endpoint);
  const host = url.hostname.toLowerCase();
  const listed = extraHosts.some((h) => h.toLowerCase() === host);
  const secure = url.protocol === "https:" || (url.protocol === "http:" && listed && LOOPBACK.has(host));
  if (!secure || url.username || url.password || !isAllowedPushHost(host, extraHosts))
    throw badRequest("endpoint is not a push service this server sends to");
}

/** Stores this device session's subscription, replacing an earlier one of the session (or of the endpoint). */
export async function saveSubscription(
  db: Database,
  actor: Actor,
  input: PushSubscriptionInput,
  extraHosts: readonly string[],
): Promise<void> {
  checkEndpoint(input.endpoint, extraHosts);
  await db.transaction(async (tx) => {
    // The same browser signed in again (a new session) keeps its endpoint: the old row goes.
    await tx.delete(pushSubscriptions).where(eq(pushSubscriptions.endpoint, input.endpoint));
    await tx
      .insert(pushSubscriptions)
      .values({
        sessionId: actor.sessionId,
        userId: actor.userId,
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
      })
      .onConflictDoUpdate({
        target: pushSubscriptions.sessionId,
        set: {
          endpoint: input.endpoint,
          p256dh: input.keys.p256dh,
          auth: input.keys.auth,
          updatedAt: new Date(),
        },
      });
  });
}

export async function removeSubscription(db: Database, actor: Actor): Promise<void> {
  await db.delete(pushSubscriptions).where(eq(pushSubscriptions.sessionId, actor.sessionId));
}

async function deviceSubscription(db: Database, actor: Actor) {
  const [row] = await db
    .select({ id: pushSubscriptions.id })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.sessionId, actor.sessionId));
  return row ?? null;
}

/**
 * This device's state and the member's mode for each of their agencies (their choice, else the default
 * of domain effectivePushMode), with their units there (issue 26).
 */
export async function pushPreferences(db: Database, actor: Actor) {
  const [device, mine, rows] = await Promise.all([
    deviceSubscription(db, actor),
    unitsOfUser(db, actor.userId),
    db
      .select({ id: agencies.id, name: agencies.name, mode: pushAgencyModes.mode })
      .from(userAgencies)
      .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
      .leftJoin(
        pushAgencyModes,
        and(
          eq(pushAgencyModes.userId, userAgencies.userId),
          eq(pushAgencyModes.agencyId, userAgencies.agencyId),
        ),
      )
      .where(eq(userAgencies.userId, actor.userId))
      .orderBy(asc(agencies.name)),
  ]);
  return {
    device_subscribed: device !== null,
    agencies: rows.map((r) => {
      const units = mine.filter((u) => u.agency_id === r.id).map((u) => ({ id: u.id, name: u.name }));
      return {
        agency_id: r.id,
        agency_name: r.name,
        mode: effectivePushMode(r.mode, units.length > 0),
        units,
      };
    }),
  };
}

/** Sets the member's choice for some of their agencies; an agency that is not theirs is a 400. */
export async function setAgencyModes(
  db: Database,
  actor: Actor,
  choices: readonly { agency_id: number; mode: PushAgencyMode }[],
): Promise<void> {
  if (choices.length === 0) return;
  const ids = [...new Set(choices.map((c) => c.agency_id))];
  const owned = await db
    .select({ id: userAgencies.agencyId })
    .from(userAgencies)
    .where(and(eq(userAgencies.userId, actor.userId), inArray(userAgencies.agencyId, ids)));
  if (owned.length !== ids.length) throw badRequest("You can only choose for agencies you are assigned to.");
  for (const c of choices) {
    await db
      .insert(pushAgencyModes)
      .values({ userId: actor.userId, agencyId: c.agency_id, mode: c.mode })
      .onConflictDoUpdate({
        target: [pushAgencyModes.userId, pushAgencyModes.agencyId],
        set: { mode: c.mode, updatedAt: new Date() },
      });
  }
}

/** Queues a test notification to this device; 409 when it has not turned push on. */
export async function queueTestPush(db: Database, actor: Actor): Promise<void> {
  const device = await deviceSubscription(db, actor);
  if (!device) throw conflict("Push notifications are not turned on for this device.");
  await queueDevicePush(db, device.id, testPushNotification(new Date()));
}
