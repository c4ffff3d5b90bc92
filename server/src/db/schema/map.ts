import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  doublePrecision,
  index,
  integer,
  pgTable,
  serial,
  text,
  timestamp,
  varchar,
} from "drizzle-orm/pg-core";
import { units } from "./agencies.js";
import { alerts } from "./alerts.js";
import { users } from "./users.js";

// ---------------------------------------------------------------------------
// Where jobs are (issue 34): positions of alerts and the open address dataset an admin loaded
// ---------------------------------------------------------------------------

/**
 * Where an alert's job is, placed at ingest (domain placeAddress): precision is coordinates (the
 * message's own), street (a house or street of the address dataset), intersection, or suburb (the
 * bundled locality data). No row: the alert has no address that places.
 */
export const alertPositions = pgTable("alert_positions", {
  alertId: bigint("alert_id", { mode: "number" })
    .primaryKey()
    .references(() => alerts.id, { onDelete: "cascade" }),
  latitude: doublePrecision("latitude").notNull(),
  longitude: doublePrecision("longitude").notNull(),
  precision: varchar("precision", { length: 16 }).notNull(),
  placedAt: timestamp("placed_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Addresses of an open dataset (a G-NAF or OpenStreetMap extract as CSV) that an admin loaded with
 * `npm run addresses -- load`: street and suburb in their matching form (domain streetKey, suburbKey).
 */
export const addressPoints = pgTable(
  "address_points",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    state: varchar("state", { length: 3 }),
    suburb: text("suburb").notNull(),
    street: text("street").notNull(),
    number: integer("number"),
    latitude: doublePrecision("latitude").notNull(),
    longitude: doublePrecision("longitude").notNull(),
    /** The file's name it came from, so loading a newer extract of a state replaces it. */
    source: text("source").notNull(),
    loadedAt: timestamp("loaded_at", { withTimezone: true }).notNull().default(sql`now()`),
  },
  (t) => [index("address_points_street_idx").on(t.suburb, t.street, t.number)],
);

// ---------------------------------------------------------------------------
// Station turnout boards (issue 34): displays of one unit, paired by a code shown on the screen
// ---------------------------------------------------------------------------

/**
 * A screen in a station, signed in as a display of one unit: it reads that unit's jobs and answers,
 * nothing else. Not a user and no device of anyone's. `tokenHash`: SHA-256 of the screen's secret,
 * set when an admin pairs it (null: not paired yet, or unpaired).
 */
export const displays = pgTable("displays", {
  id: serial("id").primaryKey(),
  unitId: integer("unit_id")
    .notNull()
    .references(() => units.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  /** Minutes after the last page when the board goes back to its idle clock. */
  idleMinutes: integer("idle_minutes").notNull().default(30),
  tokenHash: varchar("token_hash", { length: 64 }),
  pairedAt: timestamp("paired_at", { withTimezone: true }),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
  createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A screen waiting to be paired: the code it shows and the hash of its secret. An admin entering the
 * code pairs the screen with a display (its secret becomes the display's token) and deletes the row,
 * so a code works once; it expires at `expiresAt`.
 */
export const displayPairings = pgTable("display_pairings", {
  secretHash: varchar("secret_hash", { length: 64 }).primaryKey(),
  code: varchar("code", { length: 8 }).notNull().unique(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
