import { maskPhone } from "@turnout/domain";
import type { Database } from "../../db/client.js";
import { otpAttempts, securityEvents } from "../../db/schema.js";
import { type SystemLogEntry, writeSystemLog } from "../../system-log.js";

export type SecurityEventType =
  | "registration"
  | "registration_limited"
  | "activation_success"
  | "activation_failed"
  | "otp_requested"
  | "otp_request_limited"
  | "otp_failed"
  | "otp_lockout"
  | "otp_daily_limit"
  | "sms_budget_reached"
  | "proof_of_work_failed"
  | "device_credential_revoked"
  | "recovery_sign_in"
  | "login_success"
  | "login_blocked"
  | "session_limit_reached"
  | "session_force_logout"
  | "session_ended"
  | "admin_config_changed"
  | "admin_lockout_cleared"
  | "admin_otp_reset"
  | "admin_cleanup"
  | "admin_user_created"
  | "admin_user_updated"
  | "admin_user_deleted"
  | "admin_user_activated"
  | "admin_user_deactivated"
  | "admin_session_limit_changed"
  | "admin_sessions_terminated"
  | "admin_user_agencies_changed"
  | "admin_unit_changed"
  | "admin_pwa_banner_reset"
  | "admin_logs_cleared"
  | "admin_feedback_status_changed"
  | "admin_feedback_deleted";

export type SecurityEvent = {
  type: SecurityEventType;
  severity?: "info" | "warn" | "critical";
  userId?: number | null;
  phone?: string | null;
  ip?: string | null;
  details?: Record<string, unknown>;
};

/**
 * Records a security event for the admin Security tab; the phone is stored masked. Warnings and
 * critical events (failed codes, lockouts, limits reached) also go to the system log.
 */
export async function recordSecurityEvent(db: Database, event: SecurityEvent): Promise<void> {
  await db.insert(securityEvents).values({
    eventType: event.type,
    severity: event.severity ?? "info",
    userId: event.userId ?? null,
    identifier: event.phone ? maskPhone(event.phone) : null,
    ipAddress: event.ip ?? null,
    details: event.details ?? null,
  });
  if (event.severity === "warn" || event.severity === "critical")
    await writeSystemLog(db, securityLogEntry(event));
}

function securityLogEntry(event: SecurityEvent): SystemLogEntry {
  const who = event.phone ? ` for ${maskPhone(event.phone)}` : "";
  return {
    level: event.severity === "critical" ? "critical" : "warn",
    category: "security",
    message: `Security: ${event.type.replaceAll("_", " ")}${who}`,
    details: { event_type: event.type, user_id: event.userId ?? null, ...event.details },
    ip: event.ip ?? null,
  };
}

/** Records one code request, verification or activation attempt. */
export async function recordOtpAttempt(
  db: Database,
  attempt: {
    kind: "request" | "verify" | "activate";
    phone: string;
    userId?: number | null;
    ip?: string | null;
    success: boolean;
    reason?: string;
  },
): Promise<void> {
  await db.insert(otpAttempts).values({
    kind: attempt.kind,
    phone: attempt.phone,
    userId: attempt.userId ?? null,
    ipAddress: attempt.ip ?? null,
    success: attempt.success,
    reason: attempt.reason ?? null,
  });
}
