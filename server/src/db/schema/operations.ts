import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns.js";
import { users } from "./users.js";

/**
 * Alerts received per hour (UTC bucket of created_at), type and primary agency: the monitor's message
 * figures without counting the alerts table. Kept by statement triggers on alerts (migration 0011),
 * which only append to message_count_deltas; the monitor folds the deltas in (system/message-metrics.ts)
 * and merges hours older than two days into one row per type and agency, at the earliest such hour.
 */
export const messageCounts = pgTable(
  "message_counts",
  {
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    type: varchar("type", { length: 16 }).notNull(),
    agencyId: integer("agency_id").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.hour, t.type, t.agencyId] })],
);

/**
 * Changes to message_counts not yet folded in: append-only, so concurrent ingests never wait on or
 * deadlock over a shared counter row. No key and no index: it is only ever read whole and emptied.
 */
export const messageCountDeltas = pgTable("message_count_deltas", {
  hour: timestamp("hour", { withTimezone: true }).notNull(),
  type: varchar("type", { length: 16 }).notNull(),
  agencyId: integer("agency_id").notNull(),
  n: bigint("n", { mode: "number" }).notNull(),
});

export const systemLogs = pgTable(
  "system_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** critical | error | warn | info */
    level: varchar("level", { length: 16 }).notNull(),
    category: varchar("category", { length: 64 }).notNull(),
    message: text("message").notNull(),
    details: jsonb("details"),
    ipAddress: varchar("ip_address", { length: 64 }),
    timestamp: timestamp("timestamp", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("system_logs_level_time_idx").on(t.level, t.timestamp),
    index("system_logs_time_idx").on(t.timestamp),
  ],
);

export const securityConfig = pgTable("security_config", {
  key: varchar("key", { length: 64 }).primaryKey(),
  value: text("value").notNull(),
  description: text("description"),
  updatedBy: integer("updated_by").references(() => users.id, { onDelete: "set null" }),
  updatedAt: updatedAt(),
});

export const securityEvents = pgTable(
  "security_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    eventType: varchar("event_type", { length: 64 }).notNull(),
    /** info | warn | critical */
    severity: varchar("severity", { length: 16 }).notNull().default("info"),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** Masked phone or other identifier; never a full phone number. */
    identifier: varchar("identifier", { length: 64 }),
    ipAddress: varchar("ip_address", { length: 64 }),
    details: jsonb("details"),
    createdAt: createdAt(),
  },
  (t) => [
    index("security_events_time_idx").on(t.createdAt),
    index("security_events_type_idx").on(t.eventType),
  ],
);

/** Every code request and code verification, successful or not. */
export const otpAttempts = pgTable(
  "otp_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    phone: varchar("phone", { length: 20 }).notNull(),
    ipAddress: varchar("ip_address", { length: 64 }),
    /** request | verify | activate */
    kind: varchar("kind", { length: 16 }).notNull(),
    success: boolean("success").notNull(),
    reason: varchar("reason", { length: 64 }),
    createdAt: createdAt(),
  },
  (t) => [
    index("otp_attempts_phone_time_idx").on(t.phone, t.createdAt),
    index("otp_attempts_ip_time_idx").on(t.ipAddress, t.createdAt),
  ],
);

/** Active lockouts; the source of truth for /admin/security/brute-force. */
export const bruteForceLocks = pgTable("brute_force_locks", {
  identifier: varchar("identifier", { length: 128 }).primaryKey(),
  /** phone | ip */
  kind: varchar("kind", { length: 16 }).notNull(),
  failures: integer("failures").notNull().default(0),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
  updatedAt: updatedAt(),
});

/** Small settings documents: auto-activation, admin notifications and the like. */
export const appSettings = pgTable("app_settings", {
  key: varchar("key", { length: 64 }).primaryKey(),
  value: jsonb("value").notNull(),
  updatedBy: integer("updated_by").references(() => users.id, { onDelete: "set null" }),
  updatedAt: updatedAt(),
});

/** Australian postcodes and suburbs, seeded from bundled data at start-up. */
export const postcodes = pgTable(
  "postcodes",
  {
    id: serial("id").primaryKey(),
    postcode: varchar("postcode", { length: 4 }).notNull(),
    suburb: text("suburb").notNull(),
    state: varchar("state", { length: 3 }).notNull(),
    latitude: text("latitude"),
    longitude: text("longitude"),
  },
  (t) => [
    index("postcodes_postcode_idx").on(t.postcode),
    index("postcodes_suburb_trgm_idx").using("gin", t.suburb.op("gin_trgm_ops")),
    uniqueIndex("postcodes_unique_idx").on(t.postcode, t.suburb, t.state),
  ],
);
