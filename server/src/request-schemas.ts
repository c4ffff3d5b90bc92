import { checkSmsDestination, phoneInputSchema } from "@turnout/domain";
import { z } from "zod";

/**
 * The one rule for numbers that arrive in requests, used by every route: ids and counts are written
 * as plain digits ('12'), or as JSON integers in bodies. Loose forms that `Number()` would accept
 * ('0x1', ' 1', '+1', '1e3', '1.0', '') are refused rather than read, so a padded or hex id can never
 * act on another record, and a value beyond what its column holds is a 400, not a database error.
 */

/** Largest value of a PostgreSQL `integer` column (most ids). */
export const MAX_INT_ID = 2_147_483_647;
/** Largest `bigint` id JavaScript holds exactly (alert ids). */
export const MAX_BIG_ID = Number.MAX_SAFE_INTEGER;

const DIGITS = /^\d+$/;

function wholeNumber(min: number, max: number, what: string) {
  const digits = z
    .string()
    .regex(DIGITS, `${what} must be written in digits only`)
    // Longer than the largest value can be: refused before Number() rounds it onto another value.
    .refine((s) => s.replace(/^0+(?=\d)/, "").length <= String(max).length, `${what} is too large`)
    .transform(Number);
  return z.union([z.number(), digits], { error: `${what} must be a whole number` }).pipe(
    z
      .number()
      .int(`${what} must be a whole number`)
      .min(min, min === 1 ? `${what} must be positive` : `${what} must be at least ${min}`)
      .max(max, `${what} is too large`),
  );
}

/** A row id of an `integer` column, from a path, query or body: 1 to 2^31-1, digits only. */
export const recordIdSchema = wholeNumber(1, MAX_INT_ID, "id");

/** A row id of a `bigint` column (alerts): 1 to 2^53-1, digits only. */
export const bigIdSchema = wholeNumber(1, MAX_BIG_ID, "id");

/** `:id` in a path. */
export const idParamsSchema = z.object({ id: recordIdSchema });

/** `:id` in a path, for alerts. */
export const bigIdParamsSchema = z.object({ id: bigIdSchema });

/**
 * A comma-separated list of alert ids in a query string ('1,2,3'): 1 to `max` of them, each by the id
 * rule above; repeats are read once.
 */
export function bigIdListSchema(name: string, max: number) {
  return z
    .string()
    .max(max * (String(MAX_BIG_ID).length + 1), `${name} has too many ids`)
    .transform((s, ctx) => {
      const ids: number[] = [];
      for (const part of s.split(",")) {
        const parsed = bigIdSchema.safeParse(part);
        if (!parsed.success) {
          ctx.addIssue({
            code: "custom",
            message: `${name} must be ids written in digits, separated by commas`,
          });
          return z.NEVER;
        }
        ids.push(parsed.data);
      }
      return [...new Set(ids)];
    })
    .refine((ids) => ids.length <= max, `${name} takes at most ${max} ids`);
}

/** A whole number in a query string (a limit, an offset, a number of days) between `min` and `max`. */
export function queryIntSchema(name: string, min: number, max: number) {
  return wholeNumber(min, max, name);
}

/**
 * A configuration key in a path (security config, grouping settings): one of a closed list, so an
 * unknown key is a 400 naming it and never becomes a stored row.
 */
export function settingKeySchema<const K extends readonly [string, ...string[]]>(keys: K) {
  return z.enum(keys, {
    error: (issue) => `Unknown setting '${String(issue.input).slice(0, 64)}': use one of ${keys.join(", ")}`,
  });
}

/**
 * A phone that Turnout will text (a sign-in code, an activation code, a welcome): as phoneInputSchema,
 * and a mobile of an allowed country (issue 27), else a 400 on the field saying which numbers it texts.
 */
export function smsPhoneSchema(allowedCountries: readonly string[]) {
  return phoneInputSchema.check(
    z.superRefine((phone, ctx) => {
      const checked = checkSmsDestination(phone, allowedCountries);
      if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.message });
    }),
  );
}
