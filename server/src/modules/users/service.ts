import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { users } from "../../db/schema.js";

/**
 * Makes each phone an active, verified admin: creates the user (first and last name 'Admin')
 * when missing, otherwise promotes the existing account. Phones must already be normalised.
 */
export async function ensureAdmins(db: Database, phones: readonly string[]): Promise<void> {
  for (const phone of phones) {
    await db
      .insert(users)
      .values({
        phone,
        firstName: "Admin",
        lastName: "Admin",
        isAdmin: true,
        isVerified: true,
        isActive: true,
        activatedAt: new Date(),
      })
      .onConflictDoUpdate({
        target: users.phone,
        set: {
          isAdmin: true,
          isVerified: true,
          isActive: true,
          activatedAt: sql`coalesce(${users.activatedAt}, now())`,
          updatedAt: new Date(),
        },
      });
  }
}
