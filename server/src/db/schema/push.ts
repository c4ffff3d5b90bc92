// Web Push (issue 15): subscriptions, agency modes, the delivery queue.
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from "drizzle-orm/pg-core";
import { agencies } from "./agencies.js";
import { alerts } from "./alerts.js";
import { createdAt, updatedAt } from "./columns.js";
import { deviceSessions, users } from "./users.js";

/**
 * A device's push subscription: one per device session, gone with it (the FK when the row goes, the
 * trigger of migration 0015 when the session is ended), and pruned when the push service says 404/410.
 */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: serial("id").primaryKey(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => deviceSessions.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("push_subscriptions_session_idx").on(t.sessionId),
    uniqueIndex("push_subscriptions_endpoint_idx").on(t.endpoint),
    index("push_subscriptions_user_idx").on(t.userId),
  ],
);

/** A member's push choice for one of their agencies; no row means the default, every emergency alert. */
export const pushAgencyModes = pgTable(
  "push_agency_modes",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "cascade" }),
    /** emergency | none */
    mode: varchar("mode", { length: 16 }).notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.agencyId] })],
);

/**
 * Push messages to send, durable like the SMS queue: one row per alert and device (the unique index is
 * what makes an alert push at most once per device, whichever instance or retry gets there), claimed
 * with SKIP LOCKED and a lease the sender renews (push/worker.ts).
 */
export const pushDeliveries = pgTable(
  "push_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** Null for a test notification. */
    alertId: bigint("alert_id", { mode: "number" }).references(() => alerts.id, { onDelete: "cascade" }),
    subscriptionId: integer("subscription_id")
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: "cascade" }),
    /** The notification as JSON (domain pushNotificationFor), encrypted only when sent. */
    payload: text("payload").notNull(),
    /** very-low | low | normal | high */
    urgency: varchar("urgency", { length: 8 }).notNull().default("normal"),
    topic: varchar("topic", { length: 32 }),
    /** pending | sending | sent | failed */
    status: varchar("status", { length: 16 }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex("push_deliveries_alert_subscription_idx")
      .on(t.alertId, t.subscriptionId)
      .where(sql`${t.alertId} IS NOT NULL`),
    index("push_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("push_deliveries_lease_idx").on(t.leaseUntil).where(sql`${t.status} = 'sending'`),
    index("push_deliveries_subscription_idx").on(t.subscriptionId),
  ],
);
