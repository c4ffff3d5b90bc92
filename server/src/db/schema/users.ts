// Users, their agencies and units, device sessions and credentials, codes.
import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  varchar,
} from "drizzle-orm/pg-core";
import { agencies, units } from "./agencies.js";
import { createdAt, updatedAt } from "./columns.js";

export const users = pgTable(
  "users",
  {
    id: serial("id").primaryKey(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    /** Normalised international format (+61...). */
    phone: varchar("phone", { length: 20 }).notNull().unique(),
    isAdmin: boolean("is_admin").notNull().default(false),
    /** The user entered their activation code. */
    isVerified: boolean("is_verified").notNull().default(false),
    /** Activated (automatically or by an admin) and not switched off. */
    isActive: boolean("is_active").notNull().default(false),
    /** Per-user device-session limit; null uses the security configuration default. */
    maxSessions: integer("max_sessions"),
    postcode: varchar("postcode", { length: 4 }),
    townName: text("town_name"),
    stateName: varchar("state_name", { length: 3 }),
    pwaBannerResetAt: timestamp("pwa_banner_reset_at", { withTimezone: true }),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
    activatedAt: timestamp("activated_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check("users_max_sessions_positive", sql`${t.maxSessions} IS NULL OR ${t.maxSessions} > 0`)],
);

export const userAgencies = pgTable(
  "user_agencies",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.agencyId] }), index("user_agencies_agency_idx").on(t.agencyId)],
);

/** The units a member belongs to; only units of their agencies (a trigger drops them with the agency). */
export const userUnits = pgTable(
  "user_units",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    unitId: integer("unit_id")
      .notNull()
      .references(() => units.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.unitId] }), index("user_units_unit_idx").on(t.unitId)],
);

export const deviceSessions = pgTable(
  "device_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    deviceId: varchar("device_id", { length: 128 }).notNull(),
    deviceInfo: jsonb("device_info").notNull().default({}),
    userAgent: text("user_agent"),
    ipAddress: varchar("ip_address", { length: 64 }),
    createdAt: createdAt(),
    lastActivity: timestamp("last_activity", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** logout | admin | force_logout | replaced | expired */
    endReason: varchar("end_reason", { length: 32 }),
  },
  (t) => [index("device_sessions_user_active_idx").on(t.userId).where(sql`${t.endedAt} IS NULL`)],
);

/** A session chosen on the maximum-devices dialog, ended when that device completes its sign-in. */
export const pendingSessionEvictions = pgTable(
  "pending_session_evictions",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    deviceId: varchar("device_id", { length: 128 }).notNull(),
    sessionId: uuid("session_id")
      .notNull()
      .references(() => deviceSessions.id, { onDelete: "cascade" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("pending_session_evictions_user_device_idx").on(t.userId, t.deviceId)],
);

/**
 * A device that has signed in (issue 27): it presents a signed credential naming this row, and is then
 * served by its own code allowance, which strangers cannot use up. Bound to the phone it signed in
 * with; revoked by the user, an admin, or when the phone changes.
 */
export const deviceCredentials = pgTable(
  "device_credentials",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    phone: varchar("phone", { length: 20 }).notNull(),
    deviceId: varchar("device_id", { length: 128 }).notNull(),
    deviceInfo: jsonb("device_info").notNull().default({}),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** user | admin | replaced */
    revokedBy: varchar("revoked_by", { length: 16 }),
  },
  (t) => [index("device_credentials_user_idx").on(t.userId).where(sql`${t.revokedAt} IS NULL`)],
);

/** Recovery links (the operator's `npm run admin -- recover`) already used: each works once. */
export const recoveryRedemptions = pgTable("recovery_redemptions", {
  tokenId: varchar("token_id", { length: 64 }).primaryKey(),
  userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
  redeemedAt: timestamp("redeemed_at", { withTimezone: true }).notNull().defaultNow(),
});

/** One-time sign-in codes and activation codes: stored hashed, single use, expiring. */
export const verificationCodes = pgTable(
  "verification_codes",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** login | activation */
    purpose: varchar("purpose", { length: 16 }).notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
    createdAt: createdAt(),
    /** The device credential that asked for the code (its owner's own), or null: asked for anonymously. */
    credentialId: uuid("credential_id").references(() => deviceCredentials.id, { onDelete: "cascade" }),
  },
  (t) => [index("verification_codes_user_purpose_idx").on(t.userId, t.purpose, t.createdAt)],
);
