import type { deviceSessions, systemLogs } from "../../db/schema.js";
import { presentSession } from "../../shared/sessions.js";

/** SPEC 3 'System log entry'. */
export function presentLogEntry(row: typeof systemLogs.$inferSelect) {
  return {
    id: row.id,
    level: row.level,
    category: row.category,
    message: row.message,
    timestamp: row.timestamp.toISOString(),
    details: row.details ?? null,
    ip_address: row.ipAddress,
  };
}

/** SPEC 3 'Device session' as the admin sessions list shows it: with its user, address unmasked. */
export function presentAdminSession(row: { session: typeof deviceSessions.$inferSelect; userName: string }) {
  return {
    ...presentSession(row.session),
    user_id: row.session.userId,
    user_name: row.userName,
  };
}
