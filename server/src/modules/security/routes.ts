import { maskPhone, phoneInputSchema } from "@turnout/domain";
import { and, count, desc, eq, gt, like, lt, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  bruteForceLocks,
  otpAttempts,
  securityConfig,
  securityEvents,
  users,
  verificationCodes,
} from "../../db/schema.js";
import {
  SECURITY_DEFAULTS,
  SECURITY_KEYS,
  SECURITY_RANGES,
  type SecurityKey,
} from "../../db/security-defaults.js";
import { badRequest, notFound } from "../../errors.js";
import { idParamsSchema, MAX_INT_ID, queryIntSchema, settingKeySchema } from "../../request-schemas.js";
import {
  listDeviceCredentials,
  presentDeviceCredential,
  revokeDeviceCredentials,
} from "../../shared/device-credentials.js";
import { actorOf } from "../../shared/guard.js";
import { recordSecurityEvent } from "../../shared/security/events.js";
import { clearFailures, clearPhoneFailures, phoneLockKey } from "../../shared/security/limits.js";
import { getSecuritySettings } from "../../shared/security/settings.js";
import { clearPhoneSmsBudget } from "../../shared/security/sms-budget.js";

const listQuery = z.object({
  limit: queryIntSchema("limit", 1, 500).default(100),
  offset: queryIntSchema("offset", 0, MAX_INT_ID).default(0),
});
/** Security data older than this is removed by the cleanup action. */
const RETENTION_DAYS = 90;

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A lockout's identifier with any phone in it masked. */
const displayIdentifier = (row: typeof bruteForceLocks.$inferSelect) => {
  const cut = row.identifier.lastIndexOf("|");
  if (row.kind === "phone") return `phone:${maskPhone(row.identifier.slice("phone:".length))}`;
  if (row.kind === "ip_phone" && cut > 0) {
    return `${row.identifier.slice(0, cut + 1)}${maskPhone(row.identifier.slice(cut + 1))}`;
  }
  return row.identifier;
};

/** SPEC 7 'Admin: security': the limits in force, lockouts, attempts and events. Admins only. */
export async function securityRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/security/config", async () => {
    const rows = await app.db.select().from(securityConfig);
    const byKey = new Map(rows.map((row) => [row.key, row]));
    const effective = await getSecuritySettings(app.db);
    return {
      success: true,
      data: (Object.keys(SECURITY_DEFAULTS) as SecurityKey[]).map((key) => ({
        key,
        value: effective[key],
        default_value: SECURITY_DEFAULTS[key].value,
        description: byKey.get(key)?.description ?? SECURITY_DEFAULTS[key].description,
        updated_at: iso(byKey.get(key)?.updatedAt ?? null),
      })),
    };
  });

  r.put(
    "/admin/security/config/:key",
    {
      schema: {
        params: z.object({ key: settingKeySchema(SECURITY_KEYS) }),
        body: z.object({
          value: z.union([z.number(), z.string().regex(/^\d+$/, "must be a whole number")]),
          description: z.string().trim().max(300).optional(),
        }),
      },
    },
    async (request) => {
      const key = request.params.key;
      const value = Number(request.body.value);
      const { min, max } = SECURITY_RANGES[key];
      if (!Number.isInteger(value) || value < min || value > max) {
        throw badRequest(`${key} must be a whole number from ${min} to ${max}`);
      }
      const actor = actorOf(request);
      await app.db
        .insert(securityConfig)
        .values({ key, value: String(value), description: request.body.description, updatedBy: actor.userId })
        .onConflictDoUpdate({
          target: securityConfig.key,
          set: {
            value: String(value),
            ...(request.body.description !== undefined ? { description: request.body.description } : {}),
            updatedBy: actor.userId,
            updatedAt: new Date(),
          },
        });
      await recordSecurityEvent(app.db, {
        type: "admin_config_changed",
        userId: actor.userId,
        ip: request.ip,
        details: { key, value },
      });
      return { success: true, data: { key, value } };
    },
  );

  r.get("/admin/security/stats", async () => {
    const since = new Date(Date.now() - 86_400_000);
    const [locked] = await app.db
      .select({ n: count() })
      .from(bruteForceLocks)
      .where(gt(bruteForceLocks.lockedUntil, new Date()));
    const attempts = await app.db
      .select({ success: otpAttempts.success, n: count() })
      .from(otpAttempts)
      .where(gt(otpAttempts.createdAt, since))
      .groupBy(otpAttempts.success);
    const events = await app.db
      .select({ type: securityEvents.eventType, n: count() })
      .from(securityEvents)
      .where(gt(securityEvents.createdAt, since))
      .groupBy(securityEvents.eventType);
    return {
      success: true,
      data: {
        active_lockouts: Number(locked?.n ?? 0),
        attempts_24h: {
          succeeded: Number(attempts.find((a) => a.success)?.n ?? 0),
          failed: Number(attempts.find((a) => !a.success)?.n ?? 0),
        },
        events_24h: Object.fromEntries(events.map((e) => [e.type, Number(e.n)])),
      },
    };
  });

  r.get("/admin/security/brute-force", async () => {
    const rows = await app.db
      .select()
      .from(bruteForceLocks)
      .orderBy(desc(bruteForceLocks.updatedAt))
      .limit(500);
    return {
      success: true,
      data: rows.map((row) => ({
        identifier: row.identifier,
        display: displayIdentifier(row),
        kind: row.kind,
        failures: row.failures,
        locked_until: iso(row.lockedUntil),
        is_locked: (row.lockedUntil?.getTime() ?? 0) > Date.now(),
        updated_at: iso(row.updatedAt),
      })),
    };
  });

  r.post(
    "/admin/security/brute-force/clear",
    { schema: { body: z.object({ identifier: z.string().min(1).max(128) }) } },
    async (request) => {
      await clearFailures(app.db, request.body.identifier);
      await recordSecurityEvent(app.db, {
        type: "admin_lockout_cleared",
        userId: actorOf(request).userId,
        ip: request.ip,
      });
      return { success: true, message: "Lockout cleared." };
    },
  );

  r.get("/admin/security/otp-attempts", { schema: { querystring: listQuery } }, async (request) => {
    const rows = await app.db
      .select()
      .from(otpAttempts)
      .orderBy(desc(otpAttempts.createdAt))
      .limit(request.query.limit)
      .offset(request.query.offset);
    return {
      success: true,
      data: rows.map((a) => ({
        id: a.id,
        user_id: a.userId,
        phone: maskPhone(a.phone),
        ip_address: a.ipAddress,
        kind: a.kind,
        success: a.success,
        reason: a.reason,
        created_at: iso(a.createdAt),
      })),
    };
  });

  const presentEvent = (e: typeof securityEvents.$inferSelect) => ({
    id: e.id,
    event_type: e.eventType,
    severity: e.severity,
    user_id: e.userId,
    identifier: e.identifier,
    ip_address: e.ipAddress,
    details: e.details,
    created_at: iso(e.createdAt),
  });

  r.get("/admin/security/events", { schema: { querystring: listQuery } }, async (request) => {
    const rows = await app.db
      .select()
      .from(securityEvents)
      .orderBy(desc(securityEvents.createdAt), desc(securityEvents.id))
      .limit(request.query.limit)
      .offset(request.query.offset);
    return { success: true, data: rows.map(presentEvent) };
  });

  // What admins did: every event an admin action recorded.
  r.get("/admin/security/actions", { schema: { querystring: listQuery } }, async (request) => {
    const rows = await app.db
      .select()
      .from(securityEvents)
      .where(like(securityEvents.eventType, "admin\\_%"))
      .orderBy(desc(securityEvents.createdAt), desc(securityEvents.id))
      .limit(request.query.limit)
      .offset(request.query.offset);
    return { success: true, data: rows.map(presentEvent) };
  });

  r.get("/admin/security/users/:id/status", { schema: { params: idParamsSchema } }, async (request) => {
    const [user] = await app.db.select().from(users).where(eq(users.id, request.params.id));
    if (!user) throw notFound("User not found");
    const [lock] = await app.db
      .select()
      .from(bruteForceLocks)
      .where(eq(bruteForceLocks.identifier, phoneLockKey(user.phone)));
    const recent = await app.db
      .select()
      .from(otpAttempts)
      .where(eq(otpAttempts.userId, user.id))
      .orderBy(desc(otpAttempts.createdAt))
      .limit(10);
    return {
      success: true,
      data: {
        user_id: user.id,
        is_active: user.isActive,
        is_verified: user.isVerified,
        failures: lock?.failures ?? 0,
        locked_until: iso(lock?.lockedUntil ?? null),
        is_locked: (lock?.lockedUntil?.getTime() ?? 0) > Date.now(),
        recent_attempts: recent.map((a) => ({
          kind: a.kind,
          success: a.success,
          reason: a.reason,
          created_at: iso(a.createdAt),
        })),
      },
    };
  });

  /**
   * Forgets the phone's failures (its daily ceiling and every address's lockout of it) and voids its
   * open codes, so the next code request starts afresh.
   */
  const resetPhone = async (phone: string, userId: number | null, adminId: number, ip: string) => {
    await clearPhoneFailures(app.db, phone);
    await clearPhoneSmsBudget(app.cache, phone);
    if (userId !== null) {
      await app.db
        .update(verificationCodes)
        .set({ consumedAt: new Date() })
        .where(and(eq(verificationCodes.userId, userId), sql`${verificationCodes.consumedAt} IS NULL`));
    }
    await recordSecurityEvent(app.db, {
      type: "admin_otp_reset",
      userId: adminId,
      phone,
      ip,
      details: { userId },
    });
  };

  r.post("/admin/security/users/:id/reset-otp", { schema: { params: idParamsSchema } }, async (request) => {
    const [user] = await app.db.select().from(users).where(eq(users.id, request.params.id));
    if (!user) throw notFound("User not found");
    await resetPhone(user.phone, user.id, actorOf(request).userId, request.ip);
    return { success: true, message: "Sign-in attempts reset." };
  });

  r.post(
    "/admin/security/phone/:phone/reset-otp",
    { schema: { params: z.object({ phone: phoneInputSchema }) } },
    async (request) => {
      const phone = request.params.phone;
      const [user] = await app.db.select({ id: users.id }).from(users).where(eq(users.phone, phone));
      await resetPhone(phone, user?.id ?? null, actorOf(request).userId, request.ip);
      return { success: true, message: "Sign-in attempts reset." };
    },
  );

  // Recognised devices (issue 27): each holds a credential that keeps its own sign-in allowance.
  r.get("/admin/security/users/:id/devices", { schema: { params: idParamsSchema } }, async (request) => {
    const rows = await listDeviceCredentials(app.db, request.params.id);
    return { success: true, data: rows.map(presentDeviceCredential) };
  });

  const revokeDevices = async (
    request: { ip: string } & Parameters<typeof actorOf>[0],
    userId: number,
    credentialId?: string,
  ) => {
    const [user] = await app.db.select().from(users).where(eq(users.id, userId));
    if (!user) throw notFound("User not found");
    const revoked = await revokeDeviceCredentials(app.db, user.id, "admin", credentialId);
    await recordSecurityEvent(app.db, {
      type: "device_credential_revoked",
      userId: actorOf(request).userId,
      phone: user.phone,
      ip: request.ip,
      details: { target_user_id: user.id, revoked, credential_id: credentialId ?? null, by: "admin" },
    });
    return {
      success: true,
      message: `${revoked} recognised device${revoked === 1 ? "" : "s"} revoked.`,
      data: { revoked },
    };
  };

  r.delete("/admin/security/users/:id/devices", { schema: { params: idParamsSchema } }, async (request) =>
    revokeDevices(request, request.params.id),
  );

  r.delete(
    "/admin/security/users/:id/devices/:credentialId",
    {
      schema: {
        params: z.object({ id: idParamsSchema.shape.id, credentialId: z.string().uuid("Unknown device") }),
      },
    },
    async (request) => revokeDevices(request, request.params.id, request.params.credentialId),
  );

  r.post("/admin/security/cleanup", async (request) => {
    const cutoff = new Date(Date.now() - RETENTION_DAYS * 86_400_000);
    const attempts = await app.db
      .delete(otpAttempts)
      .where(lt(otpAttempts.createdAt, cutoff))
      .returning({ id: otpAttempts.id });
    const events = await app.db
      .delete(securityEvents)
      .where(lt(securityEvents.createdAt, cutoff))
      .returning({ id: securityEvents.id });
    const expiredLocks = await app.db
      .delete(bruteForceLocks)
      .where(lt(bruteForceLocks.updatedAt, cutoff))
      .returning({ id: bruteForceLocks.identifier });
    const codes = await app.db
      .delete(verificationCodes)
      .where(lt(verificationCodes.expiresAt, cutoff))
      .returning({ id: verificationCodes.id });
    await recordSecurityEvent(app.db, {
      type: "admin_cleanup",
      userId: actorOf(request).userId,
      ip: request.ip,
    });
    return {
      success: true,
      data: {
        retention_days: RETENTION_DAYS,
        otp_attempts: attempts.length,
        security_events: events.length,
        lockouts: expiredLocks.length,
        codes: codes.length,
      },
    };
  });
}
