import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  varchar,
} from "drizzle-orm/pg-core";
import { alerts } from "./alerts.js";
import { createdAt, updatedAt } from "./columns.js";
import { users } from "./users.js";

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
