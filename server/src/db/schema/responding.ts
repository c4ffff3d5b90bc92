// Who is responding (issue 15).
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, timestamp, varchar } from "drizzle-orm/pg-core";
import { alerts } from "./alerts.js";
import { updatedAt } from "./columns.js";
import { users } from "./users.js";

/**
 * One member's answer to an emergency job: 'responding' or 'not_available', with an optional ETA. A job
 * is an alert group or a single alert; answers attach to its first alert (`job_alert_id`), so every page
 * of the job shows the same answers (modules/responding/service.ts).
 */
export const jobResponses = pgTable(
  "job_responses",
  {
    jobAlertId: bigint("job_alert_id", { mode: "number" })
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** responding | not_available */
    status: varchar("status", { length: 16 }).notNull(),
    /** 5, 10 or 15 (15+) minutes; null when not given. */
    etaMinutes: integer("eta_minutes"),
    /** When the member gave the answer (an answer sent later from offline keeps its time). */
    answeredAt: timestamp("answered_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.jobAlertId, t.userId] }),
    index("job_responses_user_idx").on(t.userId),
    check("job_responses_status_check", sql`${t.status} in ('responding', 'not_available')`),
    check("job_responses_eta_check", sql`${t.etaMinutes} is null or ${t.etaMinutes} in (5, 10, 15)`),
  ],
);
