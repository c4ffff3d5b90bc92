import { capcodeSchema } from "@turnout/domain";
import { z } from "zod";

/** Largest value of a PostgreSQL integer column; bigger ids would fail in the database, not in validation. */
const MAX_ID = 2_147_483_647;

/** A row id sent as a number or as a numeric string (select boxes send strings). */
export const recordIdSchema = z
  .union([
    z.number(),
    z
      .string()
      .trim()
      .regex(/^\d{1,10}$/, "must be a number"),
  ])
  .transform(Number)
  .pipe(z.number().int("must be a whole number").positive("must be positive").max(MAX_ID, "is too large"));

/** `:id` in a path. */
export const idParamsSchema = z.object({ id: recordIdSchema });

/** A pager capcode: 1–10 digits, stored zero-padded to 7 when shorter (the domain rule). */
export const capcodeNumberSchema = capcodeSchema;

/**
 * An optional label (alias, area): absent leaves it unchanged, '' or null clears it, text sets it.
 */
export const labelSchema = z
  .string()
  .trim()
  .max(100, "must be at most 100 characters")
  .nullable()
  .optional()
  .transform((v) => (v === undefined ? undefined : v || null));
