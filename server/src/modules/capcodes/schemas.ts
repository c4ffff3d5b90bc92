import { capcodeSchema } from "@turnout/domain";
import { z } from "zod";

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
