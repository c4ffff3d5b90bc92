// An admin's action, recorded where admins look for it (system log and the security tab). Used by every admin module.
import { maskPhone } from "@turnout/domain";
import type { Database } from "../db/client.js";
import { writeSystemLog } from "../system-log.js";
import type { Actor } from "./guard.js";
import { recordSecurityEvent, type SecurityEventType } from "./security/events.js";

/**
 * Records an admin's action where admins look for it: the system log (level info, category admin) and
 * the security tab's admin actions (a security event of an `admin_` type), both with the admin's id.
 */
export async function recordAdminAction(
  db: Database,
  actor: Actor,
  ip: string | null,
  action: {
    type: SecurityEventType & `admin_${string}`;
    message: string;
    details?: Record<string, unknown>;
    /** The user the action was about: named in the details with the phone masked. */
    target?: { id: number; phone: string };
  },
): Promise<void> {
  const details = {
    admin_id: actor.userId,
    ...(action.target
      ? { target_user_id: action.target.id, target_phone: maskPhone(action.target.phone) }
      : {}),
    ...action.details,
  };
  await recordSecurityEvent(db, {
    type: action.type,
    userId: actor.userId,
    phone: action.target?.phone ?? null,
    ip,
    details,
  });
  await writeSystemLog(db, { level: "info", category: "admin", message: action.message, details, ip });
}
