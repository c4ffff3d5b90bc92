import { type SQLWrapper, sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  bit,
  boolean,
  check,
  doublePrecision,
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

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();

// ---------------------------------------------------------------------------
// Agencies, users and their sessions
// ---------------------------------------------------------------------------

export const agencies = pgTable("agencies", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  code: varchar("code", { length: 32 }).notNull().unique(),
  description: text("description"),
  logoPath: text("logo_path"),
  isActive: boolean("is_active").notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

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

/**
 * A brigade, SES unit or group of an agency (issue 26): the capcodes it is paged on (unitCapcodes) and
 * the members who belong to it (userUnits). Its place orders the units offered at registration.
 */
export const units = pgTable(
  "units",
  {
    id: serial("id").primaryKey(),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    code: varchar("code", { length: 32 }),
    postcode: varchar("postcode", { length: 4 }),
    suburb: text("suburb"),
    state: varchar("state", { length: 3 }),
    latitude: doublePrecision("latitude"),
    longitude: doublePrecision("longitude"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("units_agency_name_idx").on(t.agencyId, sql`lower(${t.name})`)],
);

/** The capcodes a unit is paged on; only its own agency's (a trigger drops a capcode that moves agency). */
export const unitCapcodes = pgTable(
  "unit_capcodes",
  {
    unitId: integer("unit_id")
      .notNull()
      .references(() => units.id, { onDelete: "cascade" }),
    capcodeId: integer("capcode_id")
      .notNull()
      .references(() => capcodes.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.unitId, t.capcodeId] }),
    index("unit_capcodes_capcode_idx").on(t.capcodeId),
  ],
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

/** One-time sign-in codes and activation codes: stored hashed, single use, expiring. */
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

// ---------------------------------------------------------------------------
// Capcodes, alerts and grouping
// ---------------------------------------------------------------------------

export const capcodes = pgTable(
  "capcodes",
  {
    id: serial("id").primaryKey(),
    /** Pager address, kept as text so leading zeros survive (7 digits in Victoria). */
    capcode: varchar("capcode", { length: 16 }).notNull().unique(),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "restrict" }),
    alias: text("alias"),
    /** Area label that alerts on this capcode take as `area`. */
    area: text("area"),
    isActive: boolean("is_active").notNull().default(true),
    /**
     * Set when an admin deleted the capcode. The row stays so the alerts it received keep their
     * recipient (and so their agencies' feeds and searches), but its number is renamed out of the way
     * (`deletedCapcode` keeps it): ingest and the admin then meet the number as a new capcode.
     */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    deletedCapcode: varchar("deleted_capcode", { length: 16 }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("capcodes_agency_idx").on(t.agencyId)],
);

export const alertGroups = pgTable(
  "alert_groups",
  {
    id: serial("id").primaryKey(),
    jobNumber: varchar("job_number", { length: 32 }).notNull(),
    agencyId: integer("agency_id").references(() => agencies.id, { onDelete: "set null" }),
    hasEmergency: boolean("has_emergency").notNull().default(false),
    messageCount: integer("message_count").notNull().default(0),
    firstAlertAt: timestamp("first_alert_at", { withTimezone: true }).notNull(),
    lastAlertAt: timestamp("last_alert_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  // Not unique: a job number seen again after the grouping window starts a new group.
  (t) => [index("alert_groups_job_number_idx").on(t.jobNumber, t.lastAlertAt)],
);

export const alerts = pgTable(
  "alerts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** emergency | non-emergency | administrative | standard */
    type: varchar("type", { length: 16 }).notNull(),
    /** Text exactly as received, network prefix included. */
    rawMessage: text("raw_message").notNull(),
    /** Displayed text: the network prefix stripped. */
    message: text("message").notNull(),
    capcode: varchar("capcode", { length: 16 }).notNull(),
    capcodeId: integer("capcode_id").references(() => capcodes.id, { onDelete: "set null" }),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "restrict" }),
    area: text("area"),
    jobNumber: varchar("job_number", { length: 32 }),
    groupId: integer("group_id").references(() => alertGroups.id, { onDelete: "set null" }),
    primaryAddress: text("primary_address"),
    hasMappableAddress: boolean("has_mappable_address").notNull().default(false),
    directionsUrl: text("directions_url"),
    latitude: text("latitude"),
    longitude: text("longitude"),
    source: varchar("source", { length: 64 }),
    /** The sender's idempotency key, unique per source, so a retried batch is stored once. */
    sourceMessageId: varchar("source_message_id", { length: 128 }),
    /** Hash of capcode + text, for duplicate suppression inside the configured window. */
    dedupeHash: varchar("dedupe_hash", { length: 64 }).notNull(),
    /**
     * The time the alert is shown and ordered at: when the pager network sent it (the receiver's time),
     * or the receipt time when that is not sane (domain pagerTime). Milliseconds, like the feed's cursor.
     */
    sentAt: timestamp("sent_at", { withTimezone: true, precision: 3 }).notNull(),
    /** When Turnout received it (kept: duplicate window, capcode last seen). */
    createdAt: createdAt(),
    /**
     * The agencies of the alert's recipients, distinct and ascending ('{}' without any): what a viewer's
     * agency scope reads (alerts/service.ts pagedToAny). A trigger on alert_recipients (migration 0006)
     * recomputes it whenever recipients are added, changed or removed, and writes it only if it changed.
     */
    agencyIds: integer("agency_ids").array().notNull().default(sql`'{}'`),
    /** A machine or test page (domain isMachinePage): administrative, never pushed or rung, hidden from members by default. */
    isMachine: boolean("is_machine").notNull().default(false),
  },
  (t) => [
    index("alerts_created_idx").on(t.createdAt.desc(), t.id.desc()),
    // The feed's order and keyset cursor (alerts/service.ts pageRows), read backwards. Ascending on
    // purpose: `ORDER BY sent_at DESC` means NULLS FIRST, which an index built DESC NULLS LAST (as
    // .desc() builds it) cannot give, so the planner would sort the whole table instead.
    index("alerts_sent_idx").on(t.sentAt, t.id),
    index("alerts_agency_created_idx").on(t.agencyId, t.createdAt.desc(), t.id.desc()),
    index("alerts_dedupe_idx").on(t.dedupeHash, t.createdAt),
    index("alerts_group_idx").on(t.groupId),
    index("alerts_capcode_idx").on(t.capcodeId),
    // Keyword search (trigram ILIKE) and the agency scope together, intersected inside the index.
    index("alerts_agency_ids_message_idx").using("gin", t.agencyIds, t.message.op("gin_trgm_ops")),
    // The words of the message (split at spaces, lower-cased) and the agency scope: the search's word
    // prefilter (alerts/service.ts termConditions), with search_words telling which words contain a term.
    index("alerts_agency_ids_words_idx").using("gin", t.agencyIds, sql`${searchWordsExpression(t.message)}`),
    // The same words qualified by each agency of the alert ('12:fire'): a member's search reads the
    // posting list of their agencies' words only (migration 0018).
    index("alerts_agency_words_idx").using("gin", agencyWordsExpression(t.agencyIds, t.message)),
    uniqueIndex("alerts_source_message_idx")
      .on(t.source, t.sourceMessageId)
      .where(sql`${t.sourceMessageId} IS NOT NULL`),
  ],
);

/** Every capcode a message was paged to: one alert row, many recipients (and so many agencies). */
/**
 * The words of an alert's message as the search's word index holds them: the lower-cased text split at
 * spaces (alerts_agency_ids_words_idx; search_words holds every such word). A search term never holds
 * a space, so a message contains the term exactly when one of these words does.
 */
export function searchWordsExpression(message: SQLWrapper) {
  return sql`string_to_array(lower(${message}), ' ')`;
}

/**
 * Each word (searchWordsExpression) of an alert's message once per agency of the alert, as
 * '{agency id}:{word}' (alerts_agency_words_idx; the function is in migration 0018). An alert paged to
 * agency 12 contains the term exactly when one of its '12:' words does.
 */
export function agencyWordsExpression(agencyIds: SQLWrapper, message: SQLWrapper) {
  return sql`alert_agency_words(${agencyIds}, ${message})`;
}

/**
 * Every word (searchWordsExpression) of every alert's message, kept by a trigger on alerts (migration
 * 0016): which words contain a search term (trigram index), so the word index can serve the term.
 * Never pruned: a word whose alerts are gone only widens a prefilter that the text check follows.
 */
export const searchWords = pgTable("search_words", { word: text("word").notNull() }, (t) => [
  // Not unique on purpose (an insert never waits for another's): migration 0016.
  index("search_words_word_idx").on(t.word),
  index("search_words_trgm_idx").using("gin", t.word.op("gin_trgm_ops")),
]);

/** Alerts per word block (wordBlocks): a block's bits for one word are a bit(4096), 512 bytes kept in line. */
export const WORD_BLOCK_SIZE = 4096;

/**
 * Which alerts of a block of WORD_BLOCK_SIZE ids hold a common word (searchWordsExpression): bit i of
 * block b is alert id b * WORD_BLOCK_SIZE + i (migration 0021). Kept for the words of wordBlockWords,
 * for sealed blocks only (ids that no transaction can still add to), by the sealer of
 * modules/alerts/word-blocks.ts; a block where the word never occurs has no row. Two common words that
 * never occur together are then proven so by ANDing a few thousand bit strings instead of stepping
 * through two posting lists of millions of entries each.
 */
export const wordBlocks = pgTable(
  "word_blocks",
  {
    word: text("word").notNull(),
    block: integer("block").notNull(),
    bits: bit("bits", { dimensions: WORD_BLOCK_SIZE }).notNull(),
  },
  // The bits are in the index too (INCLUDE, in migration 0021): a word's blocks are read by an
  // index-only scan, a few pages in a row, not one heap page each (rows of one block are written together).
  (t) => [uniqueIndex("word_blocks_word_block_idx").on(t.word, t.block)],
);

/** The words wordBlocks keeps, and for each, the blocks below `filled_below` have their bits. */
export const wordBlockWords = pgTable("word_block_words", {
  word: text("word").primaryKey(),
  filledBelow: integer("filled_below").notNull().default(0),
});

export const alertRecipients = pgTable(
  "alert_recipients",
  {
    alertId: bigint("alert_id", { mode: "number" })
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    capcodeId: integer("capcode_id")
      .notNull()
      .references(() => capcodes.id, { onDelete: "cascade" }),
    agencyId: integer("agency_id")
      .notNull()
      .references(() => agencies.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.alertId, t.capcodeId] }),
    index("alert_recipients_agency_idx").on(t.agencyId, t.alertId),
    index("alert_recipients_capcode_idx").on(t.capcodeId, t.alertId),
  ],
);

/**
 * Every sender id (source + id) ingest has seen, with the alert it became: the created alert, or the
 * alert it was merged into or found a duplicate of. A retried batch finds every one of its messages
 * here however late it comes, merged copies included (alerts.source_message_id holds only the id of the
 * message that created the alert). Kept as long as the alert is: deleting an alert deletes its ids.
 */
export const ingestMessageIds = pgTable(
  "ingest_message_ids",
  {
    source: varchar("source", { length: 64 }).notNull(),
    messageId: varchar("message_id", { length: 128 }).notNull(),
    alertId: bigint("alert_id", { mode: "number" })
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.messageId] }),
    index("ingest_message_ids_alert_idx").on(t.alertId),
  ],
);

export const groupingPatterns = pgTable("grouping_patterns", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** A regular expression whose first capture group (or whole match) is the job number. */
  pattern: text("pattern").notNull(),
  description: text("description"),
  priority: integer("priority").notNull().default(100),
  isActive: boolean("is_active").notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const groupingSettings = pgTable("grouping_settings", {
  key: varchar("key", { length: 64 }).primaryKey(),
  value: text("value").notNull(),
  description: text("description"),
  updatedAt: updatedAt(),
});

export const ingestKeys = pgTable("ingest_keys", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** SHA-256 of the key; the key itself is shown once, when issued. */
  keyHash: varchar("key_hash", { length: 64 }).notNull().unique(),
  keyPrefix: varchar("key_prefix", { length: 12 }).notNull(),
  createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: createdAt(),
  lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
});

// ---------------------------------------------------------------------------
// Per-user settings: feed filters and keyword SMS rules
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Web Push (issue 15)
// ---------------------------------------------------------------------------

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
 * with SKIP LOCKED and a lease the sender renews (push/queue.ts).
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

// ---------------------------------------------------------------------------
// Who is responding (issue 15)
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// SMS queue
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Feedback
// ---------------------------------------------------------------------------

export const feedbackConversations = pgTable(
  "feedback_conversations",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    /** open | in_progress | closed */
    status: varchar("status", { length: 16 }).notNull().default("open"),
    userLastReadAt: timestamp("user_last_read_at", { withTimezone: true }),
    adminLastReadAt: timestamp("admin_last_read_at", { withTimezone: true }),
    lastMessageAt: timestamp("last_message_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("feedback_conversations_user_idx").on(t.userId),
    index("feedback_conversations_status_idx").on(t.status),
  ],
);

export const feedbackMessages = pgTable(
  "feedback_messages",
  {
    id: serial("id").primaryKey(),
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => feedbackConversations.id, { onDelete: "cascade" }),
    senderId: integer("sender_id").references(() => users.id, { onDelete: "set null" }),
    isAdmin: boolean("is_admin").notNull().default(false),
    message: text("message").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("feedback_messages_conversation_idx").on(t.conversationId, t.createdAt)],
);

export const feedbackMedia = pgTable(
  "feedback_media",
  {
    id: serial("id").primaryKey(),
    messageId: integer("message_id")
      .notNull()
      .references(() => feedbackMessages.id, { onDelete: "cascade" }),
    fileName: text("file_name").notNull(),
    fileType: varchar("file_type", { length: 128 }).notNull(),
    /** The stored file's name in DATA_DIR/feedback-uploads (random hex + extension), never a path. */
    filePath: text("file_path").notNull(),
    /** The stored name of the image thumbnail (webp) or video poster (jpeg), when one could be made. */
    thumbnailPath: text("thumbnail_path"),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    /** none | pending | done | failed | unavailable (no ffmpeg on the server) */
    conversionStatus: varchar("conversion_status", { length: 16 }).notNull().default("none"),
    /** Conversion tries started so far (the worker gives up after a few). */
    conversionAttempts: integer("conversion_attempts").notNull().default(0),
    /** A worker holds this pending row until then; after it, another instance may take it over. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** A video's poster frame is still to be made (by the media queue, not the upload request). */
    posterPending: boolean("poster_pending").notNull().default(false),
    /** ffmpeg works on this row now (until lease_until): counted against MEDIA_CONCURRENCY. */
    jobRunning: boolean("job_running").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index("feedback_media_message_idx").on(t.messageId),
    // /feedback-uploads/<name> finds its row by the stored name (a file or its thumbnail).
    index("feedback_media_file_idx").on(t.filePath),
    index("feedback_media_thumbnail_idx").on(t.thumbnailPath),
    index("feedback_media_jobs_idx")
      .on(t.leaseUntil)
      .where(sql`${t.conversionStatus} = 'pending' or ${t.posterPending}`),
  ],
);

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

// ---------------------------------------------------------------------------
// Operations: logs, security, settings
// ---------------------------------------------------------------------------

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
export * from "./schema-map.js";
