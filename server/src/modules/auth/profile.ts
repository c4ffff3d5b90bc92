// The signed-in user's profile and the agencies offered at sign-up.
import { MESSAGES, UNMAPPED_AGENCY } from "@turnout/domain";
import { and, asc, eq, ne } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, userAgencies, users } from "../../db/schema.js";
import { AppError } from "../../errors.js";
import { presentAgency, presentProfileUser } from "../../shared/present-user.js";
import { unitsOfUser } from "../../shared/units.js";

/** The signed-in user with their primary agency and every agency assigned to them. */
export async function getProfile(db: Database, userId: number) {
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) throw new AppError(401, "unauthorized", MESSAGES.SESSION_INVALID, { reason: "invalid" });
  const [assigned, units] = await Promise.all([userAgencyRows(db, userId), unitsOfUser(db, userId)]);
  return {
    success: true as const,
    user: {
      ...presentProfileUser(user),
      units: units.map((u) => ({ id: u.id, name: u.name, agency_id: u.agency_id })),
    },
    agency: assigned[0] ? presentAgency(assigned[0]) : null,
    agencies: assigned.map(presentAgency),
  };
}

/** Agencies a person can choose at sign-up (every active agency but the UNMAPPED placeholder). */
export async function listSignupAgencies(db: Database) {
  const rows = await db
    .select()
    .from(agencies)
    .where(and(eq(agencies.isActive, true), ne(agencies.code, UNMAPPED_AGENCY.code)))
    .orderBy(asc(agencies.id));
  return { success: true as const, data: rows.map(presentAgency) };
}

async function userAgencyRows(db: Database, userId: number) {
  const rows = await db
    .select({ agency: agencies })
    .from(userAgencies)
    .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
    .where(eq(userAgencies.userId, userId))
    .orderBy(asc(userAgencies.createdAt), asc(agencies.id));
  return rows.map((r) => r.agency);
}

export async function primaryAgency(db: Database, userId: number) {
  const [first] = await userAgencyRows(db, userId);
  return first ? presentAgency(first) : null;
}
