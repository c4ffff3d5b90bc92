import { z } from "zod/mini";
import { api } from "../../../api/client";
import { orElse, orEmpty } from "../../../api/schema-helpers";

/** One security setting: its key, the value in force, its default and what it means. */
export const securityConfigEntrySchema = z.object({
  key: z.string(),
  value: z.number(),
  default_value: z.nullish(z.number()),
  description: orElse(z.string(), ""),
  updated_at: z.nullish(z.string()),
});
export type SecurityConfigEntry = z.output<typeof securityConfigEntrySchema>;

export const securityStatsSchema = z.object({
  active_lockouts: z.number(),
  attempts_24h: z.object({ succeeded: z.number(), failed: z.number() }),
  events_24h: z.record(z.string(), z.number()),
});
export type SecurityStats = z.output<typeof securityStatsSchema>;

/** A brute-force lock; `identifier` is what the server clears, `display` is it with any phone masked. */
export const bruteForceLockSchema = z.object({
  identifier: z.string(),
  display: z.string(),
  kind: z.string(),
  failures: z.number(),
  locked_until: z.nullish(z.string()),
  is_locked: z.boolean(),
  updated_at: z.nullish(z.string()),
});
export type BruteForceLock = z.output<typeof bruteForceLockSchema>;

export const otpAttemptSchema = z.object({
  id: z.number(),
  phone: z.string(),
  ip_address: z.nullish(z.string()),
  kind: z.string(),
  success: z.boolean(),
  reason: z.nullish(z.string()),
  created_at: z.nullish(z.string()),
});
export type OtpAttempt = z.output<typeof otpAttemptSchema>;

export const securityEventSchema = z.object({
  id: z.number(),
  event_type: z.string(),
  severity: z.nullish(z.string()),
  user_id: z.nullish(z.number()),
  identifier: z.nullish(z.string()),
  ip_address: z.nullish(z.string()),
  details: z.optional(z.unknown()),
  created_at: z.nullish(z.string()),
});
export type SecurityEvent = z.output<typeof securityEventSchema>;

export const userSecurityStatusSchema = z.object({
  user_id: z.number(),
  is_active: z.boolean(),
  is_verified: z.boolean(),
  failures: z.number(),
  locked_until: z.nullish(z.string()),
  is_locked: z.boolean(),
  recent_attempts: orEmpty(
    z.array(
      z.object({
        kind: z.string(),
        success: z.boolean(),
        reason: z.nullish(z.string()),
        created_at: z.nullish(z.string()),
      }),
    ),
  ),
});
export type UserSecurityStatus = z.output<typeof userSecurityStatusSchema>;

export const cleanupResultSchema = z.object({
  retention_days: z.number(),
  otp_attempts: z.number(),
  security_events: z.number(),
  lockouts: z.number(),
  codes: z.number(),
});
export type CleanupResult = z.output<typeof cleanupResultSchema>;

interface Envelope {
  success: boolean;
  message?: string;
  data?: unknown;
}

const get = async <T extends z.ZodMiniType>(path: string, schema: T, signal?: AbortSignal) =>
  schema.parse((await api.get<Envelope>(path, { signal })).data) as z.output<T>;

/** A device that signed in and keeps its own sign-in allowance (issue 27). */
export const recognisedDeviceSchema = z.object({
  id: z.string(),
  device_info: z.string(),
  created_at: z.string(),
  last_used_at: z.string(),
  expires_at: z.string(),
});
export type RecognisedDevice = z.output<typeof recognisedDeviceSchema>;

export const securityApi = {
  config: (signal?: AbortSignal) => get("/admin/security/config", z.array(securityConfigEntrySchema), signal),
  stats: (signal?: AbortSignal) => get("/admin/security/stats", securityStatsSchema, signal),
  bruteForce: (signal?: AbortSignal) =>
    get("/admin/security/brute-force", z.array(bruteForceLockSchema), signal),
  otpAttempts: (signal?: AbortSignal) =>
    get("/admin/security/otp-attempts", z.array(otpAttemptSchema), signal),
  events: (signal?: AbortSignal) => get("/admin/security/events", z.array(securityEventSchema), signal),
  actions: (signal?: AbortSignal) => get("/admin/security/actions", z.array(securityEventSchema), signal),
  userStatus: (id: number, signal?: AbortSignal) =>
    get(`/admin/security/users/${id}/status`, userSecurityStatusSchema, signal),

  userDevices: (id: number, signal?: AbortSignal) =>
    get(`/admin/security/users/${id}/devices`, z.array(recognisedDeviceSchema), signal),

  /** Revokes one recognised device of the user, or all of them. */
  async revokeUserDevices(id: number, deviceId?: string): Promise<string> {
    const path = `/admin/security/users/${id}/devices${deviceId ? `/${encodeURIComponent(deviceId)}` : ""}`;
    const reply = await api.delete<Envelope>(path);
    return reply.message ?? "Devices revoked.";
  },

  async updateConfig(key: string, value: number, description?: string): Promise<void> {
    await api.put(`/admin/security/config/${encodeURIComponent(key)}`, { value, description });
  },

  async clearLock(identifier: string): Promise<string> {
    const reply = await api.post<Envelope>("/admin/security/brute-force/clear", { identifier });
    return reply.message ?? "Lockout cleared.";
  },

  async resetUserOtp(id: number): Promise<string> {
    const reply = await api.post<Envelope>(`/admin/security/users/${id}/reset-otp`);
    return reply.message ?? "Sign-in attempts reset.";
  },

  async resetPhoneOtp(phone: string): Promise<string> {
    const reply = await api.post<Envelope>(`/admin/security/phone/${encodeURIComponent(phone)}/reset-otp`);
    return reply.message ?? "Sign-in attempts reset.";
  },

  async cleanup(): Promise<CleanupResult> {
    return cleanupResultSchema.parse((await api.post<Envelope>("/admin/security/cleanup")).data);
  },
};
