// The SMS queue.
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns.js";
import { ruleTriggers } from "./member-settings.js";
import { users } from "./users.js";

export const smsQueue = pgTable(
  "sms_queue",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    toPhone: varchar("to_phone", { length: 20 }).notNull(),
    body: text("body").notNull(),
    /** otp | activation | account | rule | rule_review | notice */
    kind: varchar("kind", { length: 16 }).notNull(),
    /** pending | sending | sent | failed */
    status: varchar("status", { length: 16 }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the current claim was taken (status `sending`). */
    lockedAt: timestamp("locked_at", { withTimezone: true }),
    /**
     * Until when the claim holds: its worker renews it while sending; once it has passed, any worker
     * may claim the row again (sms/queue.ts).
     */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    lastError: text("last_error"),
    providerMessageId: text("provider_message_id"),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    ruleTriggerId: bigint("rule_trigger_id", { mode: "number" }).references(() => ruleTriggers.id, {
      onDelete: "set null",
    }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [
    index("sms_queue_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("sms_queue_status_idx").on(t.status, t.createdAt),
    index("sms_queue_lease_idx").on(t.leaseUntil).where(sql`${t.status} = 'sending'`),
    uniqueIndex("sms_queue_rule_trigger_idx").on(t.ruleTriggerId).where(sql`${t.ruleTriggerId} IS NOT NULL`),
  ],
);
