import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  doublePrecision,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  varchar,
} from "drizzle-orm/pg-core";
import { alerts } from "./schema.js";

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
