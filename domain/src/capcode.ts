import { z } from "zod/mini";

/** Capcodes shorter than this are zero-padded to it (the 7-digit Victorian pager format). */
export const CAPCODE_PADDED_LENGTH = 7;

/**
 * The stored form of a capcode given as 1–10 digits: zero-padded to 7 when shorter, so '12345' and
 * '0012345' are the same pager address.
 */
export function normalizeCapcode(digits: string): string {
  return digits.padStart(CAPCODE_PADDED_LENGTH, "0");
}

/** A pager capcode as a request carries it (text or a number): 1–10 digits, normalised. */
export const capcodeSchema = z.pipe(
  z.pipe(
    z.union([z.string(), z.number().check(z.int(), z.nonnegative())]),
    z.transform((v) => String(v).trim()),
  ),
  z.pipe(
    z.string().check(z.regex(/^\d{1,10}$/, "A capcode is 1 to 10 digits.")),
    z.transform(normalizeCapcode),
  ),
);
