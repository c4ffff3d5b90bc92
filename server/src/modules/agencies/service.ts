import { SIGNUP_AGENCY_CODES, UNMAPPED_AGENCY } from "@turnout/domain";
import { and, asc, count, eq, getTableColumns, isNotNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, alerts, capcodes } from "../../db/schema.js";
import { conflict, notFound } from "../../errors.js";
import type { DomainEventBus } from "../../events.js";
import { requireAgency } from "../../shared/agencies.js";
import type { LogoStore, LogoType } from "./logo-store.js";

type AgencyRow = typeof agencies.$inferSelect;
export type AgencyWithCounts = AgencyRow & { capcodeCount: number; userCount: number };
export type NewAgency = { name: string; code: string; description?: string | null };
export type AgencyChanges = { name?: string; code?: string; description?: string | null };

/** Agencies the product itself relies on: sign-up offers the four, ingest files unknown capcodes under UNMAPPED. */
export const BUILT_IN_AGENCY_CODES: readonly string[] = [...SIGNUP_AGENCY_CODES, UNMAPPED_AGENCY.code];

// Written out: Drizzle leaves columns of a single-table select unqualified, which inside these
// correlated subqueries would resolve to the subquery's own table.
const withCounts = {
  ...getTableColumns(agencies),
  capcodeCount:
    sql<number>`(select count(*) from "capcodes" where "capcodes"."agency_id" = "agencies"."id" and "capcodes"."deleted_at" is null)`.mapWith(
      Number,
    ),
  userCount:
    sql<number>`(select count(*) from "user_agencies" where "user_agencies"."agency_id" = "agencies"."id")`.mapWith(
      Number,
    ),
};

/** Every agency by name, with how many capcodes and users each has. */
export async function listAgencies(db: Database): Promise<AgencyWithCounts[]> {
  return db.select(withCounts).from(agencies).orderBy(asc(agencies.name), asc(agencies.id));
}

/** One agency with its counts. Throws 404 'Agency not found'. */
export async function getAgency(db: Database, id: number): Promise<AgencyWithCounts> {
  const [row] = await db.select(withCounts).from(agencies).where(eq(agencies.id, id));
  if (!row) throw notFound("Agency not found");
  return row;
}

/** Creates an agency. Throws 409 when its code is taken (compared without case). */
export async function createAgency(db: Database, input: NewAgency): Promise<AgencyWithCounts> {
  await assertCodeFree(db, input.code);
  const [row] = await db
    .insert(agencies)
    .values({ name: input.name, code: input.code, description: input.description ?? null })
    .returning();
  return getAgency(db, row!.id);
}

/**
 * Renames an agency, changes its code or description. Throws 404 for an unknown agency, 409 when the
 * new code is taken or when it would change the code of a built-in agency (sign-up and ingest find
 * those by code).
 */
export async function updateAgency(
  db: Database,
  id: number,
  changes: AgencyChanges,
): Promise<AgencyWithCounts> {
  const current = await requireAgency(db, id);
  // Codes arrive upper-cased, so the built-in 'Other' sent back unchanged must not count as a change.
  const code = changes.code?.toLowerCase() === current.code.toLowerCase() ? undefined : changes.code;
  if (code !== undefined) {
    if (BUILT_IN_AGENCY_CODES.includes(current.code)) {
      throw conflict(`${current.code} is a built-in agency; its code cannot be changed.`);
    }
    await assertCodeFree(db, code, id);
  }
  await db
    .update(agencies)
    .set({ name: changes.name, code, description: changes.description, updatedAt: new Date() })
    .where(eq(agencies.id, id));
  return getAgency(db, id);
}

/**
 * Deletes an agency with no capcodes and no alerts of its own; its users lose it, feed filters naming
 * it go, and so does its logo file. Throws 404 for an unknown agency and 409 for a built-in agency or
 * one that still has capcodes or alerts.
 */
export async function deleteAgency(
  db: Database,
  logos: LogoStore,
  id: number,
  events: DomainEventBus,
): Promise<AgencyRow> {
  const deleted = await db.transaction(async (tx) => {
    const agency = await getAgency(tx, id);
    if (BUILT_IN_AGENCY_CODES.includes(agency.code)) {
      throw conflict(`${agency.name} (${agency.code}) is a built-in agency and cannot be deleted.`);
    }
    if (agency.capcodeCount > 0) {
      throw conflict(
        `${agency.name} still has ${plural(agency.capcodeCount, "capcode")}. Move or delete them first.`,
      );
    }
    // Alerts keep the agency they were first filed under, so such an agency stays as their history.
    const [{ alertCount } = { alertCount: 0 }] = await tx
      .select({ alertCount: count() })
      .from(alerts)
      .where(eq(alerts.agencyId, id));
    if (alertCount > 0) {
      throw conflict(`${agency.name} is the agency of ${plural(alertCount, "alert")} and cannot be deleted.`);
    }
    // User filters: every member's filter naming the agency goes, in this transaction.
    await events.publish("agencyDeleting", { tx, agencyId: id });
    // Deleted capcodes stay as their alerts' history; with the agency gone, nobody is left to read it.
    await tx.delete(capcodes).where(and(eq(capcodes.agencyId, id), isNotNull(capcodes.deletedAt)));
    const [row] = await tx.delete(agencies).where(eq(agencies.id, id)).returning();
    return row!;
  });
  await logos.remove(deleted.logoPath);
  return deleted;
}

/**
 * Stores a new logo for an agency and removes the one it replaces. The caller has checked the bytes
 * are of `type`. Throws 404 for an unknown agency.
 */
export async function setAgencyLogo(
  db: Database,
  logos: LogoStore,
  id: number,
  logo: { bytes: Buffer; type: LogoType },
): Promise<AgencyWithCounts> {
  const current = await requireAgency(db, id);
  const logoPath = await logos.save(id, logo.bytes, logo.type);
  try {
    await db.update(agencies).set({ logoPath, updatedAt: new Date() }).where(eq(agencies.id, id));
  } catch (error) {
    await logos.remove(logoPath);
    throw error;
  }
  await logos.remove(current.logoPath);
  return getAgency(db, id);
}

/** Removes an agency's logo (nothing to do when it has none). Throws 404 for an unknown agency. */
export async function removeAgencyLogo(
  db: Database,
  logos: LogoStore,
  id: number,
): Promise<AgencyWithCounts> {
  const current = await requireAgency(db, id);
  if (current.logoPath) {
    await db.update(agencies).set({ logoPath: null, updatedAt: new Date() }).where(eq(agencies.id, id));
    await logos.remove(current.logoPath);
  }
  return getAgency(db, id);
}

async function assertCodeFree(db: Database, code: string, exceptId?: number): Promise<void> {
  const [clash] = await db
    .select({ id: agencies.id, code: agencies.code })
    .from(agencies)
    .where(sql`lower(${agencies.code}) = lower(${code})`);
  if (clash && clash.id !== exceptId) throw conflict(`An agency with code ${clash.code} already exists.`);
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
