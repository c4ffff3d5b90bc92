// Changing users (admin): every change is recorded, and its live effect follows the commit. Their agencies: user-agencies.ts; reading: queries.ts.
import { maskPhone, UNMAPPED_AGENCY, welcomeSmsText } from "@turnout/domain";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { RequestMeta, ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { agencies, smsQueue, userAgencies, users } from "../../db/schema.js";
import { badRequest, conflict, notFound } from "../../errors.js";
import { runAfterCommit } from "../../events.js";
import { accountReadySms } from "../../shared/account-activation.js";
import { recordAdminAction as recordAction } from "../../shared/admin-actions.js";
import type { Actor } from "../../shared/guard.js";
import type { SecurityEventType } from "../../shared/security/events.js";
import { endUserSessions } from "../../shared/sessions.js";
import { enqueueSms } from "../../sms/queue.js";
import { type AdminUser, userStatus } from "./present.js";
import { findUser, getAdminUser, type UserRow } from "./queries.js";

export const PHONE_TAKEN = "A user with this phone number already exists.";
export const LAST_ADMIN =
  "This is the last active admin: make another user an admin first, so someone can still run Turnout.";

/**
 * Makes each phone an active, verified admin: creates the user (first and last name 'Admin')
 * when missing, otherwise promotes the existing account. Phones must already be normalised.
 */
export async function ensureAdmins(db: Database, phones: readonly string[]): Promise<void> {
  for (const phone of phones) {
    await db
      .insert(users)
      .values({
        phone,
        firstName: "Admin",
        lastName: "Admin",
        isAdmin: true,
        isVerified: true,
        isActive: true,
        activatedAt: new Date(),
      })
      .onConflictDoUpdate({
        target: users.phone,
        set: {
          isAdmin: true,
          isVerified: true,
          isActive: true,
          activatedAt: sql`coalesce(${users.activatedAt}, now())`,
          updatedAt: new Date(),
        },
      });
  }
}

/**
 * Serialises the changes that can remove an active admin (taken first, before any row lock, so two of
 * them never deadlock): two admins removing each other at the same moment cannot leave nobody.
 */
async function lockAdminSet(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('turnout.users.admin-set'))`);
}

/** Throws 409 unless an active admin other than `userId` remains. Call after lockAdminSet. */
async function assertAnotherActiveAdmin(tx: Database, userId: number): Promise<void> {
  const admins = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.isAdmin, true), eq(users.isActive, true)));
  if (!admins.some((a) => a.id !== userId)) throw conflict(LAST_ADMIN);
}

/** Throws 400 unless every id is an agency a user may be assigned (not the UNMAPPED placeholder). */
export async function assertAssignableAgencies(db: Database, agencyIds: number[]): Promise<void> {
  if (agencyIds.length === 0) return;
  const found = await db.select().from(agencies).where(inArray(agencies.id, agencyIds));
  const missing = agencyIds.filter((id) => !found.some((a) => a.id === id));
  if (missing.length > 0) throw badRequest(`Unknown agency: ${[...new Set(missing)].join(", ")}`);
  if (found.some((a) => a.code === UNMAPPED_AGENCY.code)) {
    throw badRequest(`The ${UNMAPPED_AGENCY.name} placeholder cannot be assigned to a user.`);
  }
}

/** Records an admin's action on a user (Security tab actions list and system log; phones masked). */
export function recordAdminAction(
  tx: Database,
  actor: Actor,
  meta: RequestMeta,
  action: {
    type: SecurityEventType & `admin_${string}`;
    text: string;
    target?: UserRow;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  const who = action.target ? ` user #${action.target.id} (${maskPhone(action.target.phone)})` : "";
  return recordAction(tx, actor, meta.ip, {
    type: action.type,
    message: `Admin #${actor.userId} ${action.text}${who}`,
    ...(action.details ? { details: action.details } : {}),
    ...(action.target ? { target: action.target } : {}),
  });
}

export type NewUser = {
  firstName: string;
  lastName: string;
  phone: string;
  isAdmin?: boolean;
  agencyIds?: number[];
  maxSessions?: number | null;
};

/**
 * Adds an active, verified user who can sign in at once, and texts them a welcome saying how to sign
 * in (queued in the same transaction, so only an account that exists is texted). The phone must be
 * normalised. Throws 409 when the phone is taken, 400 for an unknown agency or the UNMAPPED placeholder.
 */
export async function createUser(
  ctx: ServiceContext,
  actor: Actor,
  input: NewUser,
  meta: RequestMeta,
): Promise<AdminUser> {
  const agencyIds = [...new Set(input.agencyIds ?? [])];
  const created = await ctx.db.transaction(async (tx) => {
    await assertAssignableAgencies(tx, agencyIds);
    const [user] = await tx
      .insert(users)
      .values({
        firstName: input.firstName,
        lastName: input.lastName,
        phone: input.phone,
        isAdmin: input.isAdmin ?? false,
        isVerified: true,
        isActive: true,
        activatedAt: new Date(),
        maxSessions: input.maxSessions ?? null,
      })
      .onConflictDoNothing({ target: users.phone })
      .returning();
    if (!user) throw conflict(PHONE_TAKEN);
    if (agencyIds.length > 0) {
      await tx.insert(userAgencies).values(agencyIds.map((agencyId) => ({ userId: user.id, agencyId })));
    }
    await enqueueSms(tx, {
      to: user.phone,
      body: welcomeSmsText({ firstName: user.firstName, publicUrl: ctx.config.publicUrl }),
      kind: "account",
      userId: user.id,
    });
    await recordAdminAction(tx, actor, meta, {
      type: "admin_user_created",
      text: "created",
      target: user,
      details: { is_admin: user.isAdmin, agency_ids: agencyIds },
    });
    return user;
  });
  ctx.nudgeSms();
  return getAdminUser(ctx.db, created.id);
}

export type UserChanges = { firstName?: string; lastName?: string; phone?: string; isAdmin?: boolean };

/**
 * Changes a user's names, phone (already normalised) or admin right. Throws 404 for an unknown user,
 * 409 when the phone is taken, when admins would remove their own admin right, or when the last
 * active admin would lose it.
 */
export async function updateUser(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  changes: UserChanges,
  meta: RequestMeta,
): Promise<AdminUser> {
  const adminChanged = await ctx.db.transaction(async (tx) => {
    if (changes.isAdmin === false) await lockAdminSet(tx);
    const user = await findUser(tx, userId, true);
    const losesAdmin = changes.isAdmin === false && user.isAdmin;
    if (losesAdmin && userId === actor.userId) throw conflict("You cannot remove your own admin rights.");
    if (losesAdmin && user.isActive) await assertAnotherActiveAdmin(tx, userId);
    if (changes.phone !== undefined && changes.phone !== user.phone) {
      const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.phone, changes.phone));
      if (taken) throw conflict(PHONE_TAKEN);
    }
    const set = {
      ...(changes.firstName !== undefined ? { firstName: changes.firstName } : {}),
      ...(changes.lastName !== undefined ? { lastName: changes.lastName } : {}),
      ...(changes.phone !== undefined ? { phone: changes.phone } : {}),
      ...(changes.isAdmin !== undefined ? { isAdmin: changes.isAdmin } : {}),
    };
    const changed = Object.entries(set)
      .filter(([key, value]) => user[key as keyof typeof set] !== value)
      .map(([key]) => key);
    if (changed.length === 0) return false;
    await tx
      .update(users)
      .set({ ...set, updatedAt: new Date() })
      .where(eq(users.id, userId));
    await recordAdminAction(tx, actor, meta, {
      type: "admin_user_updated",
      text: "updated",
      target: user,
      details: {
        changed,
        ...(changed.includes("phone") ? { new_phone: maskPhone(changes.phone!) } : {}),
        ...(changed.includes("isAdmin") ? { is_admin: changes.isAdmin } : {}),
      },
    });
    return changed.includes("isAdmin");
  });
  if (adminChanged) ctx.live.userAccessChanged(userId);
  return getAdminUser(ctx.db, userId);
}

/**
 * Deletes a user with their agencies, filters, keyword rules, device sessions, feedback conversations
 * and unsent SMS; their open pages are told the session ended. Security events and the admin log
 * keep their rows, unlinked. Throws 404 for an unknown user, 409 for oneself or the last active admin.
 */
export async function deleteUser(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  meta: RequestMeta,
): Promise<void> {
  if (userId === actor.userId) throw conflict("You cannot delete your own account.");
  const deleted = await ctx.db.transaction(async (tx) => {
    await lockAdminSet(tx);
    const user = await findUser(tx, userId, true);
    if (user.isAdmin && user.isActive) await assertAnotherActiveAdmin(tx, userId);
    const ended = await endUserSessions(tx, userId, "admin");
    await tx.delete(smsQueue).where(and(eq(smsQueue.userId, userId), eq(smsQueue.status, "pending")));
    await recordAdminAction(tx, actor, meta, { type: "admin_user_deleted", text: "deleted", target: user });
    // Before the row goes: the feedback module notes the user's media files (their conversations go
    // with the row, by cascade) and leaves their removal for after the commit.
    const afterCommit = await ctx.events.publish("userDeleting", { tx, userId });
    await tx.delete(users).where(eq(users.id, userId));
    return { ended, afterCommit };
  });
  await runAfterCommit(deleted.afterCommit);
  ctx.live.sessionsEnded(deleted.ended, "logged_out_by_admin");
  // The rules module: the user's rules went with the row, so the matchers reload.
  await ctx.events.publish("userDeleted", { userId });
}

/**
 * Activates or deactivates a user (`isActive` absent: the opposite of now). Deactivating ends every
 * session of the user at once; activating an account that waited for review texts 'account ready'.
 * Throws 404 for an unknown user, 409 for deactivating oneself or the last active admin.
 */
export async function setUserActive(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  isActive: boolean | undefined,
  meta: RequestMeta,
): Promise<AdminUser> {
  const outcome = await ctx.db.transaction(async (tx) => {
    if (isActive !== true) await lockAdminSet(tx);
    const user = await findUser(tx, userId, true);
    const next = isActive ?? !user.isActive;
    if (next === user.isActive) return { ended: [] as string[], texted: false };
    if (!next && userId === actor.userId) throw conflict("You cannot deactivate your own account.");
    if (!next && user.isAdmin) await assertAnotherActiveAdmin(tx, userId);
    const wasPending = userStatus(user) === "pending_review";
    // activated_at stays set once an account was active: it tells 'deactivated' from 'pending review'.
    await tx
      .update(users)
      .set({ isActive: next, activatedAt: sql`coalesce(${users.activatedAt}, now())`, updatedAt: new Date() })
      .where(eq(users.id, userId));
    const ended = next ? [] : await endUserSessions(tx, userId, "admin");
    if (next && wasPending) {
      await enqueueSms(tx, { to: user.phone, body: accountReadySms(ctx), kind: "account", userId });
    }
    await recordAdminAction(tx, actor, meta, {
      type: next ? "admin_user_activated" : "admin_user_deactivated",
      text: next ? "activated" : "deactivated",
      target: user,
      details: next ? {} : { sessions_ended: ended.length },
    });
    return { ended, texted: next && wasPending };
  });
  ctx.live.sessionsEnded(outcome.ended, "logged_out_by_admin");
  if (outcome.texted) ctx.nudgeSms();
  return getAdminUser(ctx.db, userId);
}

/**
 * Sets how many devices the user may be signed in on (null: the security configuration's default);
 * it applies from their next sign-in. Throws 404 for an unknown user.
 */
export async function setSessionLimit(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  maxSessions: number | null,
  meta: RequestMeta,
): Promise<AdminUser> {
  await ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, userId, true);
    await tx.update(users).set({ maxSessions, updatedAt: new Date() }).where(eq(users.id, userId));
    await recordAdminAction(tx, actor, meta, {
      type: "admin_session_limit_changed",
      text: `set the session limit to ${maxSessions ?? "the default"} for`,
      target: user,
      details: { max_sessions: maxSessions },
    });
  });
  return getAdminUser(ctx.db, userId);
}

/**
 * Ends one session of the user (`sessionId`) or all of them; their pages show 'Session Ended' (logged
 * out by an administrator) at once. Returns how many ended. Throws 404 for an unknown user, or a
 * session that is not an active session of theirs.
 */
export async function terminateUserSessions(
  ctx: ServiceContext,
  actor: Actor,
  userId: number,
  sessionId: string | undefined,
  meta: RequestMeta,
): Promise<number> {
  const ended = await ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, userId);
    const ids = await endUserSessions(tx, userId, "admin", sessionId);
    if (sessionId && ids.length === 0) throw notFound("Session not found.");
    await recordAdminAction(tx, actor, meta, {
      type: "admin_sessions_terminated",
      text: `ended ${ids.length} session(s) of`,
      target: user,
      details: { session_ids: ids },
    });
    return ids;
  });
  ctx.live.sessionsEnded(ended, "logged_out_by_admin");
  return ended.length;
}

/**
 * Makes the install banner show again on the chosen users' next app start (all users for "all"):
 * their profile's pwa_banner_reset_at becomes now. Returns how many users were reset.
 */
export async function resetPwaBanner(
  ctx: ServiceContext,
  actor: Actor,
  userIds: number[] | "all",
  meta: RequestMeta,
): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    // The rows are locked in id order first, as an UPDATE locks them (NO KEY: the admin action recorded
    // below share-locks the admin's row through its foreign key, which this does not block). A plain
    // UPDATE locks them in whatever order its plan visits them (the table's for everyone, the key's for
    // a few; updated rows move), so resets at once could each hold a row another waits for: deadlocks,
    // and a pool of connections stuck behind them (issue 28).
    const chosen = tx
      .select({ id: users.id })
      .from(users)
      .where(userIds === "all" ? undefined : inArray(users.id, userIds))
      .orderBy(asc(users.id))
      .for("no key update");
    const rows = await tx
      .update(users)
      .set({ pwaBannerResetAt: new Date() })
      .where(inArray(users.id, chosen))
      .returning({ id: users.id });
    await recordAdminAction(tx, actor, meta, {
      type: "admin_pwa_banner_reset",
      text:
        userIds === "all" ? "reset the install banner of every user" : "reset the install banner of users",
      details: { user_ids: userIds === "all" ? "all" : rows.map((r) => r.id), reset: rows.length },
    });
    return rows.length;
  });
}
