import { sql } from "drizzle-orm";
import {
  bigint,
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
  varchar,
} from "drizzle-orm/pg-core";
import { alerts } from "./alerts.js";
import { ingestKeys } from "./ingest.js";
import { users } from "./users.js";

// ---------------------------------------------------------------------------
// Receivers, their keys and heartbeats, and the monitor's alarms (issue 33; migration 0027)
// ---------------------------------------------------------------------------

const tz = (name: string) => timestamp(name, { withTimezone: true });

/**
 * A pager receiver (a Raspberry Pi with an SDR and the bundled reader, or a PagerMon reader): its own
 * ingest keys, what it is expected to hear, its heartbeat settings and its silence state (domain
 * receiverState). The shared INGEST_API_KEY is the one `legacy` receiver; a key issued under the older
 * admin ingest keys is a receiver of its own (`ingest_key_id`). Deleting one sets `deleted_at`, so the
 * alerts it heard keep saying so.
 */
export const receivers = pgTable(
  "receivers",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    location: text("location"),
    expectedCapcodes: text("expected_capcodes").array().notNull().default(sql`'{}'`),
    expectedAgencyIds: integer("expected_agency_ids").array().notNull().default(sql`'{}'`),
    /** receiver | legacy */
    kind: varchar("kind", { length: 16 }).notNull().default("receiver"),
    ingestKeyId: integer("ingest_key_id")
      .unique()
      .references(() => ingestKeys.id, { onDelete: "set null" }),
    heartbeatIntervalSeconds: integer("heartbeat_interval_seconds").notNull().default(60),
    downAfterSeconds: integer("down_after_seconds").notNull().default(600),
    /** The admin's quiet period; null: the one learned from its history (learnedQuietSeconds), if any. */
    quietAfterSeconds: integer("quiet_after_seconds"),
    learnedQuietSeconds: integer("learned_quiet_seconds"),
    learnedAt: tz("learned_at"),
    /** unknown | ok | late | down | quiet (domain ReceiverState), as the checker last set it. */
    state: varchar("state", { length: 16 }).notNull().default("unknown"),
    stateSince: tz("state_since").notNull().defaultNow(),
    /** The last heartbeat or message: either is a sign of life. */
    lastSeenAt: tz("last_seen_at"),
    lastHeartbeatAt: tz("last_heartbeat_at"),
    lastMessageAt: tz("last_message_at"),
    /** The last heartbeat's body: spool depth, dead letters, decoder status, uptime, version. */
    lastStatus: jsonb("last_status"),
    createdAt: tz("created_at").notNull().defaultNow(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
    deletedAt: tz("deleted_at"),
  },
  (t) => [
    uniqueIndex("receivers_legacy_idx").on(t.kind).where(sql`${t.kind} = 'legacy'`),
    check("receivers_kind_check", sql`${t.kind} IN ('receiver', 'legacy')`),
    check("receivers_state_check", sql`${t.state} IN ('unknown', 'ok', 'late', 'down', 'quiet')`),
  ],
);

/**
 * A receiver's ingest key, stored as its SHA-256 (the key is shown once). Several can be valid at once:
 * a rotation issues a new key and gives the old one an `expires_at`, so the receiver switches over
 * without a gap.
 */
export const receiverKeys = pgTable(
  "receiver_keys",
  {
    id: serial("id").primaryKey(),
    receiverId: integer("receiver_id")
      .notNull()
      .references(() => receivers.id, { onDelete: "cascade" }),
    keyHash: varchar("key_hash", { length: 64 }).notNull().unique(),
    keyPrefix: varchar("key_prefix", { length: 12 }).notNull(),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: tz("created_at").notNull().defaultNow(),
    expiresAt: tz("expires_at"),
    revokedAt: tz("revoked_at"),
    lastUsedAt: tz("last_used_at"),
  },
  (t) => [index("receiver_keys_receiver_idx").on(t.receiverId)],
);

/** Which receivers heard an alert: several receivers' copies of one page are one alert, heard by each. */
export const alertReceivers = pgTable(
  "alert_receivers",
  {
    alertId: bigint("alert_id", { mode: "number" })
      .notNull()
      .references(() => alerts.id, { onDelete: "cascade" }),
    receiverId: integer("receiver_id")
      .notNull()
      .references(() => receivers.id, { onDelete: "cascade" }),
    firstHeardAt: tz("first_heard_at").notNull().defaultNow(),
    lastHeardAt: tz("last_heard_at").notNull().defaultNow(),
    /** Copies of the page this receiver delivered (a retry or a repeat inside the window counts). */
    messages: integer("messages").notNull().default(1),
  },
  (t) => [
    primaryKey({ columns: [t.alertId, t.receiverId] }),
    index("alert_receivers_receiver_idx").on(t.receiverId, t.firstHeardAt),
  ],
);

/** The delivery side's alarms (SMS failures, push failures, rule-match backlog): state since when. */
export const monitorAlarms = pgTable("monitor_alarms", {
  key: varchar("key", { length: 64 }).primaryKey(),
  /** ok | alarm */
  state: varchar("state", { length: 16 }).notNull(),
  since: tz("since").notNull().defaultNow(),
  detail: jsonb("detail"),
});
