import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";
import { alerts } from "./alerts.js";
import { createdAt, updatedAt } from "./columns.js";
import { users } from "./users.js";

export const userFilters = pgTable(
  "user_filters",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    filterType: varchar("filter_type", { length: 32 }).notNull(),
    filterValue: text("filter_value").notNull(),
    isEnabled: boolean("is_enabled").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("user_filters_user_type_value_idx").on(t.userId, t.filterType, t.filterValue)],
);

export const userAlertRules = pgTable(
  "user_alert_rules",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    keywords: jsonb("keywords").$type<string[]>().notNull(),
    /** Agency ids; empty means all of the user's agencies. */
    agencies: jsonb("agencies").$type<number[]>().notNull().default([]),
    /** Message types; empty means all. */
    priorityLevels: jsonb("priority_levels").$type<string[]>().notNull().default([]),
    /** pending | approved | rejected | suspended */
    status: varchar("status", { length: 16 }).notNull().default("pending"),
    isActive: boolean("is_active").notNull().default(true),
    /** sms | sms_and_push | push (issue 15): how the member hears that the rule fired. */
    delivery: varchar("delivery", { length: 16 }).notNull().default("sms"),
    /** Only alerts paged to the owner's units, in agencies where they chose units (issue 26). */
    unitsOnly: boolean("units_only").notNull().default(true),
    rejectionReason: text("rejection_reason"),
    reviewedBy: integer("reviewed_by").references(() => users.id, { onDelete: "set null" }),
    reviewedAt: timestamp("reviewed_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("user_alert_rules_user_idx").on(t.userId), index("user_alert_rules_status_idx").on(t.status)],
);

/** One row per rule and alert: the unique key is what makes a rule fire at most once per alert. */
export const ruleTriggers = pgTable(
  "rule_triggers",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    ruleId: integer("rule_id")
      .notNull()
      .references(() => userAlertRules.id, { onDelete: "cascade" }),
    alertId: bigint("alert_id", { mode: "number" })
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("rule_triggers_rule_alert_idx").on(t.ruleId, t.alertId),
    index("rule_triggers_rule_created_idx").on(t.ruleId, t.createdAt),
  ],
);

/**
 * Alerts whose recipients changed since keyword rules last looked at them. Rows are written by the
 * `alert_recipients_queue_rule_matching` trigger (migration 0005) in the transaction that adds the
 * recipient, so an alert committed by ingest is always queued; the rule matcher deletes a row in the
 * transaction that records its triggers and SMS. A crash between the two leaves the row for a restart.
 * No foreign key to alerts (dropped in migration 0020): deleting an alert would otherwise cascade into
 * a row a matcher holds and deadlock with it. A row whose alert is gone is dropped when next taken.
 */
export const ruleMatchQueue = pgTable("rule_match_queue", {
  alertId: bigint("alert_id", { mode: "number" }).primaryKey(),
  queuedAt: timestamp("queued_at", { withTimezone: true }).notNull().defaultNow(),
});
