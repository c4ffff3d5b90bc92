// Alerts, their groups and recipients, and the search's word index and word blocks.
import { type SQLWrapper, sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  bit,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";
import { agencies, capcodes } from "./agencies.js";
import { createdAt } from "./columns.js";

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

/** Every capcode a message was paged to: one alert row, many recipients (and so many agencies). */
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
