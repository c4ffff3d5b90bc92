import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { appSettings, users } from "../../db/schema.js";
import { badRequest } from "../../errors.js";
import { recordAdminAction } from "../../shared/admin-actions.js";
import { ADMIN_NOTIFICATIONS, readAdminNotifications } from "../../shared/admin-notifications.js";
import type { Actor } from "../../shared/guard.js";
import { enqueueManySms } from "../../sms/queue.js";

const AUTO_ACTIVATION = "auto_activation";

async function writeSetting(db: Database, key: string, value: Record<string, unknown>, actor: Actor) {
  await db
    .insert(appSettings)
    .values({ key, value, updatedBy: actor.userId })
    .onConflictDoUpdate({
      target: appSettings.key,
      set: { value, updatedBy: actor.userId, updatedAt: new Date() },
    });
}

/** Switches auto-activation on or off and records the change as an admin action; resolves to the new state. */
export async function setAutoActivation(db: Database, actor: Actor, enabled: boolean, ip: string | null) {
  await writeSetting(db, AUTO_ACTIVATION, { enabled }, actor);
  await recordAdminAction(db, actor, ip, {
    type: "admin_config_changed",
    message: `Auto-activation turned ${enabled ? "on" : "off"}`,
    details: { setting: AUTO_ACTIVATION, enabled },
  });
  return { enabled };
}

/** Every active admin, by name: the choices for admin notifications. */
function listActiveAdmins(db: Database) {
  return db
    .select({ id: users.id, first_name: users.firstName, last_name: users.lastName })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.isActive, true)))
    .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id));
}

/**
 * The admin-notification setting as the console shows it: on/off, the chosen admins (ids of admins no
 * longer active are dropped) and every active admin to choose from.
 */
export async function adminNotificationsView(db: Database) {
  const [setting, admins] = await Promise.all([readAdminNotifications(db), listActiveAdmins(db)]);
  const active = new Set(admins.map((a) => a.id));
  return { enabled: setting.enabled, admin_ids: setting.adminIds.filter((id) => active.has(id)), admins };
}

/**
 * Changes the admin-notification setting (the chosen admins stay as they were when `adminIds` is
 * absent) and records it as an admin action. Throws 400 naming ids that are not active admins.
 */
export async function setAdminNotifications(
  db: Database,
  actor: Actor,
  input: { enabled: boolean; adminIds?: number[] },
  ip: string | null,
) {
  const adminIds = input.adminIds
    ? [...new Set(input.adminIds)]
    : (await readAdminNotifications(db)).adminIds;
  if (input.adminIds && adminIds.length > 0) {
    const found = await db
      .select({ id: users.id })
      .from(users)
      .where(and(inArray(users.id, adminIds), eq(users.isAdmin, true), eq(users.isActive, true)));
    const known = new Set(found.map((u) => u.id));
    const unknown = adminIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw badRequest(`These ids are not active admins: ${unknown.join(", ")}`);
  }
  await writeSetting(db, ADMIN_NOTIFICATIONS, { enabled: input.enabled, admin_ids: adminIds }, actor);
  await recordAdminAction(db, actor, ip, {
    type: "admin_config_changed",
    message: `Admin notifications for accounts awaiting review turned ${input.enabled ? "on" : "off"}`,
    details: { setting: ADMIN_NOTIFICATIONS, enabled: input.enabled, admin_ids: adminIds },
  });
  return adminNotificationsView(db);
}

/**
 * Queues the 'account awaits review' SMS to the admins chosen for it (every active admin when none
 * is chosen), when admin notifications are on. Takes the caller's transaction, so the SMS exist only
 * if the account change commits. Resolves to how many were queued.
 */
export async function notifyAdminsOfPendingAccount(
  db: Database,
  account: { id: number; firstName: string; lastName: string },
): Promise<number> {
  const setting = await readAdminNotifications(db);
  if (!setting.enabled) return 0;
  const admins = (await listActiveAdminPhones(db)).filter(
    (a) => setting.adminIds.length === 0 || setting.adminIds.includes(a.id),
  );
  if (admins.length === 0) return 0;
  const body = `Turnout: ${account.firstName} ${account.lastName} has verified a new account and is waiting for review. Activate it in the admin console, Users tab.`;
  await enqueueManySms(
    db,
    admins.map((a) => ({ to: a.phone, body, kind: "notice" as const, userId: a.id })),
  );
  return admins.length;
}

function listActiveAdminPhones(db: Database) {
  return db
    .select({ id: users.id, phone: users.phone })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.isActive, true)));
}
