// Read by hand rather than with zod: these readers run before the login screen renders, and zod
// there would add ~20 kB gzip to the first download (zod loads with the signed-in screens instead).

/** The signed-in user as the server presents it (SPEC 3). */
export interface SessionUser {
  id: number | string;
  first_name: string;
  last_name: string;
  phone: string;
  is_admin: boolean;
}

/** The user's agency (SPEC 3); a login result may carry none. */
export interface SessionAgency {
  id: number | string;
  name: string;
  code: string;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isId(value: unknown): value is number | string {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** A user of the expected shape (unknown fields dropped, a missing is_admin is false); else undefined. */
export function readSessionUser(value: unknown): SessionUser | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  const { id, first_name, last_name, phone, is_admin = false } = record;
  if (!isId(id) || typeof first_name !== "string" || typeof last_name !== "string") return undefined;
  if (typeof phone !== "string" || typeof is_admin !== "boolean") return undefined;
  return { id, first_name, last_name, phone, is_admin };
}

/** An agency of the expected shape (unknown fields dropped); else undefined. */
export function readSessionAgency(value: unknown): SessionAgency | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  const { id, name, code } = record;
  if (!isId(id) || typeof name !== "string" || typeof code !== "string") return undefined;
  return { id, name, code };
}
