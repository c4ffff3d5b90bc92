// Agencies, their capcodes and their units (issue 26).
import { sql } from "drizzle-orm";
import {
  boolean,
  doublePrecision,
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
import { createdAt, updatedAt } from "./columns.js";

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
